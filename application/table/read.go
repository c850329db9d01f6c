package table

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// Get returns a table's definition. It needs the table scope and
// membership of the table's workspace; an unreachable table is
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*table.Table, error) {
	t, _, err := s.reach(ctx, p, id)
	return t, err
}

// List returns one page of the tables of a workspace by name, and how many
// there are. It needs the table scope and membership of the workspace.
func (s *Service) List(ctx context.Context, p identity.Principal, workspaceID int64, page identity.Page) ([]table.Table, int64, error) {
	if err := s.enter(ctx, p, workspaceID); err != nil {
		return nil, 0, err
	}
	list, total, err := s.d.Tables.ListTables(ctx, workspaceID, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list tables: %w", err)
	}
	return list, total, nil
}
