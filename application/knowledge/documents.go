package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// IndexTopic is the queue topic of documents waiting to be indexed.
const IndexTopic = "knowledge-index"

// indexMessage is the payload of a queued document.
type indexMessage struct {
	DocumentID  int64 `json:"document_id"`
	WorkspaceID int64 `json:"workspace_id,omitempty"` // whose share of the workers it takes
}

// DocumentInput is a document to add. Exactly one source is given: an
// uploaded file's id, content (the bytes of base64 content, stored as a
// file), a web page's URL, or raw text.
type DocumentInput struct {
	Name     string
	FileID   int64
	Content  []byte
	FileType string // extension of Content, or of a file whose name has none; "md" makes text markdown
	URL      string
	Text     string
	// Strategy is how the document is cut; nil takes the knowledge
	// base's default.
	Strategy *knowledge.ChunkStrategy
	// Columns marks the indexed columns of table knowledge; none: all.
	Columns    []knowledge.Column
	UpdateRule knowledge.UpdateRule
}

// AddDocuments checks documents, stores them as processing and queues
// them for indexing; it answers at once. The caller needs membership
// (errs.ErrNotFound for an unreachable knowledge base). Every bad input
// fails before anything is stored, with errs.ErrInvalid naming the field
// (documents[i].url, ...): no or several sources, a type the knowledge
// base's format does not take, a file too large, an unknown file, too
// many documents in one call or in the knowledge base.
func (s *Service) AddDocuments(ctx context.Context, p identity.Principal, knowledgeID int64, ins []DocumentInput) ([]knowledge.Document, error) {
	b, _, err := s.reach(ctx, p, knowledgeID)
	if err != nil {
		return nil, err
	}
	return s.add(ctx, b, p.UserID, ins)
}

// WriteRequest adds one document for a workflow's knowledge writer node,
// inside the workflow's workspace.
type WriteRequest struct {
	WorkspaceID int64
	KnowledgeID int64
	UserID      int64 // who the document is created by (the run's user)
	Document    DocumentInput
}

// Write adds a document as AddDocuments does, for a workflow node: no
// caller is checked, but the knowledge base must be of the workspace
// (errs.ErrNotFound otherwise). It answers at once with the processing
// document.
func (s *Service) Write(ctx context.Context, r WriteRequest) (*knowledge.Document, error) {
	b, err := s.baseIn(ctx, r.WorkspaceID, r.KnowledgeID)
	if err != nil {
		return nil, err
	}
	docs, err := s.add(ctx, b, r.UserID, []DocumentInput{r.Document})
	if err != nil {
		return nil, err
	}
	return &docs[0], nil
}

// add checks, stores and queues documents of a knowledge base.
func (s *Service) add(ctx context.Context, b *knowledge.Base, userID int64, ins []DocumentInput) ([]knowledge.Document, error) {
	if len(ins) == 0 {
		return nil, errs.Invalid("documents", "give at least one document")
	}
	if len(ins) > s.d.Limits.DocumentsPerCall {
		return nil, errs.Invalid("documents", "%d documents in one request; at most %d are allowed", len(ins), s.d.Limits.DocumentsPerCall)
	}
	docs := make([]*knowledge.Document, len(ins))
	for i, in := range ins {
		d, err := s.newDocument(ctx, b, userID, in, fmt.Sprintf("documents[%d]", i))
		if err != nil {
			return nil, err
		}
		docs[i] = d
	}
	if err := s.saveContents(ctx, b, userID, docs, ins); err != nil {
		return nil, err
	}
	now := s.d.Now()
	if err := s.d.Documents.CreateDocuments(ctx, docs, s.d.Limits.DocumentsPerBase, now.Add(s.d.Lease)); err != nil {
		return nil, fmt.Errorf("add documents: %w", err)
	}
	out := make([]knowledge.Document, len(docs))
	for i, d := range docs {
		s.enqueue(ctx, d)
		out[i] = *d
	}
	return out, nil
}

// enqueue queues a processing document. A failure is logged only: the
// document is leased to the queue, and the reaper queues it again when
// that lease ends.
func (s *Service) enqueue(ctx context.Context, d *knowledge.Document) {
	if d.Status != knowledge.StatusProcessing || s.d.Queue == nil {
		return
	}
	b, _ := json.Marshal(indexMessage{DocumentID: d.ID, WorkspaceID: d.WorkspaceID})
	if _, err := s.d.Queue.Publish(ctx, IndexTopic, b); err != nil {
		s.d.Log.WarnContext(ctx, "knowledge: queue a document; the reaper queues it again later", "document", d.ID, "err", err)
	}
}

// saveContents stores base64 content given with documents as files of
// the workspace, so the worker reads every file source the same way.
func (s *Service) saveContents(ctx context.Context, b *knowledge.Base, userID int64, docs []*knowledge.Document, ins []DocumentInput) error {
	for i, in := range ins {
		if len(in.Content) == 0 {
			continue
		}
		name := docs[i].Name
		if path.Ext(name) == "" {
			name += "." + docs[i].FileType
		}
		f, err := s.d.Files.Save(ctx, b.WorkspaceID, userID, name, in.Content)
		if err != nil {
			return fmt.Errorf("documents[%d]: %w", i, err)
		}
		docs[i].FileID = f.ID
	}
	return nil
}

// baseIn loads a knowledge base of a workspace (errs.ErrNotFound
// otherwise).
func (s *Service) baseIn(ctx context.Context, workspaceID, id int64) (*knowledge.Base, error) {
	b, err := s.d.Bases.GetBase(ctx, id)
	if err != nil || b.WorkspaceID != workspaceID {
		if err == nil || isNotFound(err) {
			return nil, baseNotFound(id)
		}
		return nil, fmt.Errorf("load knowledge base %d: %w", id, err)
	}
	return b, nil
}

// extOf returns a name's extension, lower case, without the dot.
func extOf(name string) string {
	return strings.TrimPrefix(strings.ToLower(path.Ext(name)), ".")
}
