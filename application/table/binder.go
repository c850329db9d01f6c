package table

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// BindTables checks the tables a bot binds: each must be a table of the
// bot's workspace, bound once. Errors are errs.ErrInvalid naming
// "tables[i].table_id"; without storage for rows, errs.ErrUnavailable.
func (s *Service) BindTables(ctx context.Context, workspaceID int64, refs []bot.TableRef) error {
	if err := s.available(); err != nil {
		return err
	}
	seen := map[int64]bool{}
	for i, ref := range refs {
		at := "tables[" + strconv.Itoa(i) + "].table_id"
		if seen[ref.TableID] {
			return errs.Invalid(at, "table %d is bound twice", ref.TableID)
		}
		seen[ref.TableID] = true
		t, err := s.d.Tables.GetTable(ctx, ref.TableID)
		if errors.Is(err, errs.ErrNotFound) || err == nil && t.WorkspaceID != workspaceID {
			return errs.Invalid(at, "table %d does not exist in workspace %d", ref.TableID, workspaceID)
		}
		if err != nil {
			return fmt.Errorf("bind table %d: %w", ref.TableID, err)
		}
	}
	return nil
}
