package knowledge

import (
	"context"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Names returns the name of each of ids that is a knowledge base of the
// workspace, for bots that bind knowledge bases and show their names;
// unknown ids and ids of other workspaces are absent. No caller is
// checked: the workspace is the boundary.
func (s *Service) Names(ctx context.Context, workspaceID int64, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for _, id := range ids {
		b, err := s.baseIn(ctx, workspaceID, id)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = b.Name
	}
	return out, nil
}

// waitPoll is how often WaitIndexed looks at a document.
const waitPoll = 200 * time.Millisecond

// WaitIndexed waits until a document of the workspace is indexed, for a
// workflow's writer node whose later nodes recall it: it returns the
// ready document, an error saying why when indexing failed
// (errs.ErrInvalid, the document's reason), errs.ErrNotFound when the
// document is gone, or the context's error.
func (s *Service) WaitIndexed(ctx context.Context, workspaceID, documentID int64) (*knowledge.Document, error) {
	t := time.NewTicker(waitPoll)
	defer t.Stop()
	for {
		d, err := s.d.Documents.GetDocument(ctx, documentID)
		if err != nil || d.WorkspaceID != workspaceID {
			if err == nil || isNotFound(err) {
				return nil, documentNotFound(documentID)
			}
			return nil, fmt.Errorf("wait for document %d: %w", documentID, err)
		}
		switch d.Status {
		case knowledge.StatusReady, knowledge.StatusDisabled:
			return d, nil
		case knowledge.StatusFailed:
			return nil, errs.New(errs.ErrInvalid, "document %q could not be indexed: %s", d.Name, d.Reason)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
