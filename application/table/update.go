package table

import (
	"context"
	"strings"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// Patch changes a table; nil parts stay as they are. Fields, when given,
// is the whole new list: an entry with the id of a field keeps it
// (renamed, re-described), one without adds a field, and a field left out
// is dropped with its values. The other fields keep their values.
type Patch struct {
	Name        *string
	Description *string
	Mode        *table.Mode
	Fields      []table.FieldSpec
}

// Update changes a table's definition and, for added and dropped fields,
// its physical columns. It needs the table scope and membership of the
// table's workspace (an unreachable table is errs.ErrNotFound); a wrong
// definition is errs.ErrInvalid naming the field, a taken name
// errs.ErrConflict. Columns are added before the definition is saved (a
// failure leaves the definition as it was) and dropped after.
func (s *Service) Update(ctx context.Context, p identity.Principal, id int64, patch Patch) (*table.Table, error) {
	cur, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	var dropped []table.Field
	saved, err := s.d.Tables.UpdateTable(ctx, cur.WorkspaceID, id, func(t *table.Table) error {
		var added []table.Field
		var err error
		if added, dropped, err = apply(t, patch); err != nil {
			return err
		}
		if len(added) > 0 {
			return s.d.Rows.AddFields(ctx, t, added)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(dropped) > 0 {
		if err := s.d.Rows.DropFields(ctx, saved, dropped); err != nil {
			// The fields are gone from the definition; their columns are
			// unreachable and only take room.
			s.d.Log.ErrorContext(ctx, "drop the columns of dropped fields", "table", id, "err", err)
		}
	}
	return saved, nil
}

// apply changes t by patch and checks the result.
func apply(t *table.Table, patch Patch) (added, dropped []table.Field, err error) {
	if patch.Name != nil {
		t.Name = strings.TrimSpace(*patch.Name)
	}
	if patch.Description != nil {
		t.Description = *patch.Description
	}
	if patch.Mode != nil {
		t.Mode = *patch.Mode
	}
	if patch.Fields != nil {
		if added, dropped, err = t.SetFields(patch.Fields); err != nil {
			return nil, nil, err
		}
	}
	if err := check(t); err != nil {
		return nil, nil, err
	}
	return added, dropped, nil
}
