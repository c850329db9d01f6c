package table

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// Sized is a table with what it holds.
type Sized struct {
	Table table.Table
	Size  table.Size
}

// AdminList returns one page of the tables of every workspace (or of one,
// when workspaceID is not 0) with their sizes, and how many there are. It
// needs a platform administrator with the admin scope.
func (s *Service) AdminList(ctx context.Context, p identity.Principal, workspaceID int64, page identity.Page) ([]Sized, int64, error) {
	if !p.IsAdmin {
		return nil, 0, errs.Forbidden("this needs a platform administrator")
	}
	if err := p.RequireScope(identity.ScopeAdmin); err != nil {
		return nil, 0, err
	}
	if err := s.available(); err != nil {
		return nil, 0, err
	}
	list, total, err := s.d.Tables.ListTables(ctx, workspaceID, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list tables: %w", err)
	}
	ids := make([]int64, len(list))
	for i, t := range list {
		ids[i] = t.ID
	}
	sizes, err := s.d.Rows.Sizes(ctx, ids)
	if err != nil {
		return nil, 0, fmt.Errorf("table sizes: %w", err)
	}
	out := make([]Sized, len(list))
	for i, t := range list {
		out[i] = Sized{Table: t, Size: sizes[t.ID]}
	}
	return out, total, nil
}
