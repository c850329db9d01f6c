package knowledge

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/identity"
)

// Delete removes a knowledge base: its record and its documents' records
// first, then its chunks and vectors from the index. It needs the
// creator or an admin of the workspace (errs.ErrForbidden); an
// unreachable knowledge base is errs.ErrNotFound. A worker indexing one of
// its documents finds the document gone at its next step and stops; bots
// and workflows that still name it skip it (Recall ignores unknown
// knowledge bases), as Coze does.
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64) error {
	b, m, err := s.reach(ctx, p, id)
	if err != nil {
		return err
	}
	if err := mayManage(b, p, m); err != nil {
		return err
	}
	if err := s.d.Bases.DeleteBase(ctx, b.WorkspaceID, id); err != nil {
		return fmt.Errorf("delete knowledge base %d: %w", id, err)
	}
	if err := s.d.Index.DeleteBase(ctx, b.WorkspaceID, id); err != nil {
		return fmt.Errorf("delete the chunks of knowledge base %d: %w", id, err)
	}
	return nil
}
