package knowledge

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Patch changes a knowledge base; nil fields stay.
type Patch struct {
	Name          *string
	Description   *string
	IconFileID    *int64
	ChunkStrategy *knowledge.ChunkStrategy
	// EmbeddingModel may only repeat the current model: vectors of
	// another model cannot be compared with the stored ones, so a change
	// is refused (create a new knowledge base and add the documents).
	EmbeddingModel *string
}

// Update renames or describes a knowledge base, or changes its default
// chunk strategy. It needs membership (errs.ErrNotFound for an
// unreachable knowledge base); bad fields and a change of embedding
// model fail with errs.ErrInvalid naming the field.
func (s *Service) Update(ctx context.Context, p identity.Principal, id int64, pt Patch) (*knowledge.Base, error) {
	b, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := checkPatch(b, &pt); err != nil {
		return nil, err
	}
	if pt.IconFileID != nil {
		if err := s.checkIcon(ctx, b.WorkspaceID, *pt.IconFileID); err != nil {
			return nil, err
		}
	}
	out, err := s.d.Bases.UpdateBase(ctx, b.WorkspaceID, id, func(b *knowledge.Base) error {
		applyPatch(b, pt)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update knowledge base %d: %w", id, err)
	}
	return out, nil
}

// checkPatch validates the fields a patch sets, trimming the name.
func checkPatch(b *knowledge.Base, pt *Patch) error {
	if pt.Name != nil {
		name, err := knowledge.CheckName("name", *pt.Name, knowledge.MaxBaseNameLen)
		if err != nil {
			return err
		}
		pt.Name = &name
	}
	if pt.Description != nil {
		if err := knowledge.CheckDescription(*pt.Description); err != nil {
			return err
		}
	}
	if pt.ChunkStrategy != nil {
		if err := checkStrategy(*pt.ChunkStrategy); err != nil {
			return err
		}
	}
	if pt.EmbeddingModel != nil && *pt.EmbeddingModel != "" && *pt.EmbeddingModel != b.EmbeddingModel {
		return errs.Invalid("embedding_model", "cannot change from %q to %q: the stored vectors were made by %q and cannot be compared "+
			"with another model's; create a new knowledge base with that model and add the documents to it", b.EmbeddingModel, *pt.EmbeddingModel, b.EmbeddingModel)
	}
	return nil
}

func applyPatch(b *knowledge.Base, pt Patch) {
	if pt.Name != nil {
		b.Name = *pt.Name
	}
	if pt.Description != nil {
		b.Description = *pt.Description
	}
	if pt.IconFileID != nil {
		b.IconFileID = *pt.IconFileID
	}
	if pt.ChunkStrategy != nil {
		b.ChunkStrategy = *pt.ChunkStrategy
	}
}
