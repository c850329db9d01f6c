package knowledge

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Chunks returns one page of a document's chunks in position order, and
// their count; errs.ErrNotFound for a document the caller cannot reach.
func (s *Service) Chunks(ctx context.Context, p identity.Principal, knowledgeID, documentID int64, page identity.Page) ([]knowledge.Chunk, int64, error) {
	d, err := s.reachDocument(ctx, p, knowledgeID, documentID)
	if err != nil {
		return nil, 0, err
	}
	if page, err = checkPage(page); err != nil {
		return nil, 0, err
	}
	cs, n, err := s.d.Index.ListChunks(ctx, d.WorkspaceID, d.KnowledgeID, d.ID, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list chunks: %w", err)
	}
	return cs, n, nil
}

// AddChunk appends a chunk written by hand to a ready document, embedded
// at once. It fails with errs.ErrInvalid for empty or too long text,
// errs.ErrConflict while the document is being indexed (its chunks are
// about to be replaced), errs.ErrUnavailable when the embedding model
// fails.
func (s *Service) AddChunk(ctx context.Context, p identity.Principal, knowledgeID, documentID int64, text string) (*knowledge.Chunk, error) {
	d, err := s.reachDocument(ctx, p, knowledgeID, documentID)
	if err != nil {
		return nil, err
	}
	if err := s.editable(d, text); err != nil {
		return nil, err
	}
	c := knowledge.Chunk{ID: s.d.IDs.Next(), WorkspaceID: d.WorkspaceID, KnowledgeID: d.KnowledgeID, DocumentID: d.ID,
		Position: int(d.Chunks), Text: text}
	if err := s.embedAndPut(ctx, d.KnowledgeID, &c); err != nil {
		return nil, err
	}
	if _, err := s.d.Documents.UpdateDocument(ctx, d.WorkspaceID, d.ID, func(d *knowledge.Document) error {
		d.Chunks++
		return nil
	}); err != nil {
		return nil, fmt.Errorf("count the new chunk: %w", err)
	}
	return &c, nil
}

// EditChunk replaces a chunk's text and embeds it again; a table row's
// chunk takes its row's new values from the text's "column: value" lines
// (knowledge.EditedRow), so the row never says otherwise. Errors as
// AddChunk, and errs.ErrNotFound for an unknown chunk.
func (s *Service) EditChunk(ctx context.Context, p identity.Principal, knowledgeID, chunkID int64, text string) (*knowledge.Chunk, error) {
	c, d, err := s.reachChunk(ctx, p, knowledgeID, chunkID)
	if err != nil {
		return nil, err
	}
	if err := s.editable(d, text); err != nil {
		return nil, err
	}
	if c.Row != nil {
		if c.Row, err = knowledge.EditedRow(c.Row, text); err != nil {
			return nil, err
		}
	}
	c.Text = text
	if err := s.embedAndPut(ctx, d.KnowledgeID, c); err != nil {
		return nil, err
	}
	c.Vector = nil
	return c, nil
}

// DeleteChunk removes a chunk; errs.ErrNotFound for an unknown one,
// errs.ErrConflict while its document is being indexed.
func (s *Service) DeleteChunk(ctx context.Context, p identity.Principal, knowledgeID, chunkID int64) error {
	c, d, err := s.reachChunk(ctx, p, knowledgeID, chunkID)
	if err != nil {
		return err
	}
	if d.Status == knowledge.StatusProcessing {
		return errs.Conflict("document %d is being indexed; edit its chunks when it is ready", d.ID)
	}
	if err := s.d.Index.DeleteChunks(ctx, d.WorkspaceID, d.KnowledgeID, []int64{c.ID}); err != nil {
		return fmt.Errorf("delete chunk %d: %w", chunkID, err)
	}
	_, err = s.d.Documents.UpdateDocument(ctx, d.WorkspaceID, d.ID, func(d *knowledge.Document) error {
		d.Chunks = max(d.Chunks-1, 0)
		return nil
	})
	return err
}

// editable checks a chunk's new text and that its document is not being
// indexed.
func (s *Service) editable(d *knowledge.Document, text string) error {
	if d.Status == knowledge.StatusProcessing {
		return errs.Conflict("document %d is being indexed; edit its chunks when it is ready", d.ID)
	}
	if strings.TrimSpace(text) == "" {
		return errs.Invalid("text", "is required")
	}
	if n := utf8.RuneCountInString(text); n > s.d.Limits.ChunkChars {
		return errs.Invalid("text", "is %d characters long; a chunk holds at most %d", n, s.d.Limits.ChunkChars)
	}
	return nil
}

// embedAndPut embeds a chunk's text with its knowledge base's model and
// stores it.
func (s *Service) embedAndPut(ctx context.Context, knowledgeID int64, c *knowledge.Chunk) error {
	b, err := s.d.Bases.GetBase(ctx, knowledgeID)
	if err != nil {
		return fmt.Errorf("load knowledge base %d: %w", knowledgeID, err)
	}
	vs, err := s.d.Embedder.Embed(ctx, b.EmbeddingModel, []string{c.Text})
	if err != nil {
		return errs.New(errs.ErrUnavailable, "embedding model %q failed: %v", b.EmbeddingModel, err)
	}
	c.Vector = vs[0]
	if err := s.d.Index.PutChunks(ctx, []knowledge.Chunk{*c}); err != nil {
		return fmt.Errorf("store chunk %d: %w", c.ID, err)
	}
	return nil
}

// reachChunk loads a chunk of a knowledge base the caller may reach, with
// its document.
func (s *Service) reachChunk(ctx context.Context, p identity.Principal, knowledgeID, chunkID int64) (*knowledge.Chunk, *knowledge.Document, error) {
	b, _, err := s.reach(ctx, p, knowledgeID)
	if err != nil {
		return nil, nil, err
	}
	c, err := s.d.Index.GetChunk(ctx, b.WorkspaceID, b.ID, chunkID)
	if isNotFound(err) {
		return nil, nil, errs.NotFound("chunk", strconv.FormatInt(chunkID, 10))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load chunk %d: %w", chunkID, err)
	}
	d, err := s.d.Documents.GetDocument(ctx, c.DocumentID)
	if err != nil {
		return nil, nil, fmt.Errorf("load document %d: %w", c.DocumentID, err)
	}
	return c, d, nil
}
