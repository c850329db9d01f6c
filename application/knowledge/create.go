package knowledge

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// probeText is embedded once when a model entry does not give its
// dimensions, to learn them.
const probeText = "dimension probe"

// CreateInput is a new knowledge base as a builder describes it.
type CreateInput struct {
	WorkspaceID int64
	Name        string
	Description string
	IconFileID  int64
	Format      knowledge.Format
	// EmbeddingModel names a model of kind embedding; "" takes the
	// platform's default.
	EmbeddingModel string
	// ChunkStrategy is the default of documents added without one; nil
	// for automatic chunking.
	ChunkStrategy *knowledge.ChunkStrategy
}

// Create makes a knowledge base in a workspace; the caller becomes its
// creator. The embedding model is fixed here with its dimensions (from
// the model entry, or learned by embedding a probe text). It needs the
// knowledge scope and membership (errs.ErrForbidden); bad input, an
// embedding model that is unknown or not of kind embedding, or none
// configured, fail with errs.ErrInvalid naming the field; a model that
// does not answer the probe with errs.ErrUnavailable.
func (s *Service) Create(ctx context.Context, p identity.Principal, in CreateInput) (*knowledge.Base, error) {
	if err := s.enter(ctx, p, in.WorkspaceID); err != nil {
		return nil, err
	}
	b, err := newBase(in)
	if err != nil {
		return nil, err
	}
	if err := s.checkIcon(ctx, in.WorkspaceID, in.IconFileID); err != nil {
		return nil, err
	}
	if b.EmbeddingModel, b.Dimensions, err = s.embedding(ctx, in.EmbeddingModel); err != nil {
		return nil, err
	}
	b.ID, b.CreatorID = s.d.IDs.Next(), p.UserID
	if err := s.d.Bases.CreateBase(ctx, b); err != nil {
		return nil, fmt.Errorf("create knowledge base: %w", err)
	}
	return b, nil
}

// newBase checks a new knowledge base's fields.
func newBase(in CreateInput) (*knowledge.Base, error) {
	name, err := knowledge.CheckName("name", in.Name, knowledge.MaxBaseNameLen)
	if err != nil {
		return nil, err
	}
	if err := knowledge.CheckDescription(in.Description); err != nil {
		return nil, err
	}
	if in.Format < knowledge.FormatText || in.Format > knowledge.FormatImage {
		return nil, errs.Invalid("format_type", "must be 0 (text), 1 (table) or 2 (image), not %d", in.Format)
	}
	b := &knowledge.Base{WorkspaceID: in.WorkspaceID, Name: name, Description: in.Description,
		IconFileID: in.IconFileID, Format: in.Format}
	if in.ChunkStrategy != nil {
		if err := checkStrategy(*in.ChunkStrategy); err != nil {
			return nil, err
		}
		b.ChunkStrategy = *in.ChunkStrategy
	}
	return b, nil
}

// embedding resolves the embedding model and its dimensions.
func (s *Service) embedding(ctx context.Context, id string) (string, int, error) {
	m, err := s.d.Models.EmbeddingModel(ctx, id)
	if err != nil {
		return "", 0, err
	}
	if m.Dimensions > 0 {
		return m.ID, m.Dimensions, nil
	}
	vs, err := s.d.Embedder.Embed(ctx, m.ID, []string{probeText})
	if err != nil {
		return "", 0, errs.New(errs.ErrUnavailable, "embedding model %q did not answer a probe to learn its dimensions: %v", m.ID, err)
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return "", 0, errs.New(errs.ErrUnavailable, "embedding model %q answered a probe without a vector", m.ID)
	}
	return m.ID, len(vs[0]), nil
}

// checkStrategy validates a chunk strategy as the splitter will read it
// (errs.ErrInvalid naming the chunk_strategy field).
func checkStrategy(c knowledge.ChunkStrategy) error {
	_, err := c.Normalize()
	return err
}

// checkIcon accepts no icon (0) or a file uploaded to the workspace, so a
// knowledge base never names another workspace's file or none.
func (s *Service) checkIcon(ctx context.Context, workspaceID, fileID int64) error {
	if fileID == 0 {
		return nil
	}
	_, err := s.d.Files.Of(ctx, workspaceID, fileID)
	if isNotFound(err) {
		return errs.Invalid("icon_file_id", "there is no file %d in this workspace; upload the icon with /v1/files/upload first", fileID)
	}
	if err != nil {
		return fmt.Errorf("check icon file %d: %w", fileID, err)
	}
	return nil
}
