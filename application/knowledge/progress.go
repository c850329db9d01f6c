package knowledge

import (
	"context"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// DocumentProgress is a document's indexing progress (Coze's
// DocumentProgress).
type DocumentProgress struct {
	knowledge.Document
	// RemainingSeconds estimates the time left from the pace so far
	// (0 when done, -1 before anything can be estimated).
	RemainingSeconds int
}

// Progress returns the progress of documents of a knowledge base; ids
// empty means every document of its first page of 100. Ids that are not
// documents of the knowledge base are left out. errs.ErrNotFound for an
// unreachable knowledge base.
func (s *Service) Progress(ctx context.Context, p identity.Principal, knowledgeID int64, ids []int64) ([]DocumentProgress, error) {
	b, _, err := s.reach(ctx, p, knowledgeID)
	if err != nil {
		return nil, err
	}
	docs, err := s.progressDocs(ctx, b, ids)
	if err != nil {
		return nil, fmt.Errorf("progress: %w", err)
	}
	now := s.d.Now()
	out := make([]DocumentProgress, 0, len(docs))
	for _, d := range docs {
		if d.KnowledgeID == b.ID {
			out = append(out, DocumentProgress{Document: d, RemainingSeconds: remaining(d, now)})
		}
	}
	return out, nil
}

func (s *Service) progressDocs(ctx context.Context, b *knowledge.Base, ids []int64) ([]knowledge.Document, error) {
	if len(ids) == 0 {
		docs, _, err := s.d.Documents.ListDocuments(ctx, b.WorkspaceID, b.ID, identity.Page{Number: 1, Size: 100})
		return docs, err
	}
	return s.d.Documents.DocumentsByID(ctx, b.WorkspaceID, ids)
}

// remaining estimates the seconds left of an indexing attempt from the
// pace so far: the elapsed time per percent done (the worker's percent
// follows the chunks embedded, so this is chunks per second).
func remaining(d knowledge.Document, now time.Time) int {
	if d.Status != knowledge.StatusProcessing {
		return 0
	}
	if d.StartedAt == nil || d.Progress <= 0 {
		return -1
	}
	elapsed := now.Sub(*d.StartedAt).Seconds()
	return int(elapsed*float64(100-d.Progress)/float64(d.Progress) + 0.5)
}
