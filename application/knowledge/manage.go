package knowledge

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// ListDocuments returns one page of a knowledge base's documents, newest
// first, and their count; errs.ErrNotFound for an unreachable knowledge
// base, errs.ErrInvalid for a bad page.
func (s *Service) ListDocuments(ctx context.Context, p identity.Principal, knowledgeID int64, page identity.Page) ([]knowledge.Document, int64, error) {
	b, _, err := s.reach(ctx, p, knowledgeID)
	if err != nil {
		return nil, 0, err
	}
	if page, err = checkPage(page); err != nil {
		return nil, 0, err
	}
	docs, n, err := s.d.Documents.ListDocuments(ctx, b.WorkspaceID, b.ID, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list documents: %w", err)
	}
	return docs, n, nil
}

// DocumentPatch changes a document; nil fields stay.
type DocumentPatch struct {
	Name       *string
	UpdateRule *knowledge.UpdateRule
}

// UpdateDocument renames a document or changes its update rule.
// knowledgeID 0 takes the knowledge base the document belongs to (Coze's
// document update names no knowledge base). It fails with
// errs.ErrNotFound for a document the caller cannot reach, errs.ErrInvalid
// naming the field for bad values.
func (s *Service) UpdateDocument(ctx context.Context, p identity.Principal, knowledgeID, documentID int64, pt DocumentPatch) (*knowledge.Document, error) {
	d, err := s.reachDocument(ctx, p, knowledgeID, documentID)
	if err != nil {
		return nil, err
	}
	if pt.Name != nil {
		name, err := knowledge.CheckName("name", *pt.Name, knowledge.MaxDocumentNameLen)
		if err != nil {
			return nil, err
		}
		pt.Name = &name
	}
	if err := checkRule(d, pt.UpdateRule); err != nil {
		return nil, err
	}
	out, err := s.d.Documents.UpdateDocument(ctx, d.WorkspaceID, d.ID, func(d *knowledge.Document) error {
		if pt.Name != nil {
			d.Name = *pt.Name
		}
		if pt.UpdateRule != nil {
			d.UpdateRule = *pt.UpdateRule
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update document %d: %w", documentID, err)
	}
	if pt.Name != nil {
		s.touch(ctx, out) // searches show the new name
	}
	return out, nil
}

func checkRule(d *knowledge.Document, r *knowledge.UpdateRule) error {
	if r == nil || !r.Auto {
		return nil
	}
	if d.Source != knowledge.SourceWeb {
		return errs.Invalid("update_rule", "only web pages can be refreshed automatically")
	}
	if r.IntervalHours < 1 || r.IntervalHours > 24*365 {
		return errs.Invalid("update_rule.update_interval", "must be between 1 and 8760 hours, not %d", r.IntervalHours)
	}
	return nil
}

// DeleteDocuments removes documents with their chunks. knowledgeID 0
// takes each document's own knowledge base (Coze's document delete names
// none). Every document must be reachable, or nothing is deleted
// (errs.ErrNotFound naming the first that is not).
func (s *Service) DeleteDocuments(ctx context.Context, p identity.Principal, knowledgeID int64, ids []int64) error {
	if len(ids) == 0 {
		return errs.Invalid("document_ids", "give at least one document id")
	}
	docs := make([]*knowledge.Document, 0, len(ids))
	for _, id := range ids {
		d, err := s.reachDocument(ctx, p, knowledgeID, id)
		if err != nil {
			return err
		}
		docs = append(docs, d)
	}
	for _, d := range docs {
		if err := s.removeDocument(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes documents of a knowledge base for a workflow's deleter
// node, inside the workflow's workspace: no caller is checked; ids that
// are not documents of that knowledge base are ignored. It returns how
// many documents it removed.
func (s *Service) Remove(ctx context.Context, workspaceID, knowledgeID int64, ids []int64) (int, error) {
	docs, err := s.d.Documents.DocumentsByID(ctx, workspaceID, ids)
	if err != nil {
		return 0, fmt.Errorf("remove documents: %w", err)
	}
	n := 0
	for i := range docs {
		if docs[i].KnowledgeID != knowledgeID {
			continue
		}
		if err := s.removeDocument(ctx, &docs[i]); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// removeDocument deletes a document's record, then its chunks: a worker
// still indexing it fails its next generation check and stops.
func (s *Service) removeDocument(ctx context.Context, d *knowledge.Document) error {
	if err := s.d.Documents.DeleteDocuments(ctx, d.WorkspaceID, d.KnowledgeID, []int64{d.ID}); err != nil {
		return fmt.Errorf("delete document %d: %w", d.ID, err)
	}
	if err := s.d.Index.DeleteDocument(ctx, d.WorkspaceID, d.KnowledgeID, d.ID); err != nil {
		return fmt.Errorf("delete the chunks of document %d: %w", d.ID, err)
	}
	return nil
}

// Refresh indexes a document again from its source: a web page is
// fetched again, a file or text re-parsed. It answers at once with the
// processing document; errs.ErrConflict while it is being indexed.
func (s *Service) Refresh(ctx context.Context, p identity.Principal, knowledgeID, documentID int64) (*knowledge.Document, error) {
	d, err := s.reachDocument(ctx, p, knowledgeID, documentID)
	if err != nil {
		return nil, err
	}
	return s.requeue(ctx, d)
}

// requeue makes a document processing again and queues it.
func (s *Service) requeue(ctx context.Context, d *knowledge.Document) (*knowledge.Document, error) {
	now := s.d.Now()
	out, err := s.d.Documents.Requeue(ctx, d.WorkspaceID, d.ID, now, now.Add(s.d.Lease))
	if err != nil {
		return nil, fmt.Errorf("refresh document %d: %w", d.ID, err)
	}
	s.touch(ctx, out) // its chunks stop being recalled until it is ready again
	s.enqueue(ctx, out)
	return out, nil
}

// reachDocument loads a document the caller may reach, of knowledgeID
// (0: any).
func (s *Service) reachDocument(ctx context.Context, p identity.Principal, knowledgeID, documentID int64) (*knowledge.Document, error) {
	if err := p.RequireScope(identity.ScopeKnowledge); err != nil {
		return nil, err
	}
	d, err := s.d.Documents.GetDocument(ctx, documentID)
	if isNotFound(err) || err == nil && knowledgeID != 0 && d.KnowledgeID != knowledgeID {
		return nil, documentNotFound(documentID)
	}
	if err != nil {
		return nil, fmt.Errorf("load document %d: %w", documentID, err)
	}
	if _, _, err := s.reach(ctx, p, d.KnowledgeID); err != nil {
		if isNotFound(err) {
			return nil, documentNotFound(documentID)
		}
		return nil, err
	}
	return d, nil
}
