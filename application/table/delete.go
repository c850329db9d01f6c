package table

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Delete removes a table with its draft and online rows. It needs the
// table scope and, in the table's workspace, to be its creator or to hold
// the admin role (errs.ErrForbidden otherwise); an unreachable table is
// errs.ErrNotFound. Bots that bind it lose its tool.
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64) error {
	t, m, err := s.reach(ctx, p, id)
	if err != nil {
		return err
	}
	if t.CreatorID != p.UserID && !m.Role.AtLeast(identity.RoleAdmin) {
		return errs.Forbidden("only the table's creator or an admin of workspace %d may delete table %d", t.WorkspaceID, id)
	}
	if err := s.d.Tables.DeleteTable(ctx, t.WorkspaceID, id); err != nil {
		return fmt.Errorf("delete table %d: %w", id, err)
	}
	if err := s.d.Rows.DropTable(ctx, id); err != nil {
		s.d.Log.ErrorContext(ctx, "drop the rows of a deleted table; Sweep drops them later", "table", id, "err", err)
	}
	return nil
}

// Sweep drops the rows of tables that have no definition any more: those
// whose drop failed, and those of deleted workspaces. It returns how many
// it dropped.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	if s.d.Rows == nil {
		return 0, nil
	}
	ids, err := s.d.Rows.TableIDs(ctx)
	if err != nil {
		return 0, fmt.Errorf("sweep tables: %w", err)
	}
	n := 0
	for _, id := range ids {
		_, err := s.d.Tables.GetTable(ctx, id)
		if !errors.Is(err, errs.ErrNotFound) {
			if err != nil {
				return n, fmt.Errorf("sweep tables: %w", err)
			}
			continue
		}
		if err := s.d.Rows.DropTable(ctx, id); err != nil {
			return n, fmt.Errorf("sweep tables: %w", err)
		}
		n++
	}
	return n, nil
}
