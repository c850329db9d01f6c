package sqlstore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestTableStore(t *testing.T) { forEachBackend(t, testTableStore) }

func newStoredTable(t *testing.T, db *DB, ws, creator int64, name string) *table.Table {
	t.Helper()
	tb := &table.Table{WorkspaceID: ws, CreatorID: creator, Name: name, Description: "to-dos", Mode: table.ModePerUser,
		FieldSeq: 2, Fields: []table.Field{
			{ID: 1, Name: "title", Type: table.TypeText, Description: "what", Required: true},
			{ID: 2, Name: "due", Type: table.TypeDatetime},
		}}
	mustNot(t, db.Tables().CreateTable(context.Background(), tb))
	return tb
}

func testTableStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Tables()
	ada := newUser(t, db, "ada@x.io")
	wsA := newWorkspace(t, db, "A", ada.ID)
	wsB := newWorkspace(t, db, "B", ada.ID)

	t.Run("create and get keep every field", func(t *testing.T) {
		tb := newStoredTable(t, db, wsA.ID, ada.ID, "todos")
		if tb.ID == 0 || tb.Revision != 1 || tb.CreatedAt.IsZero() {
			t.Fatalf("created = %+v", tb)
		}
		got, err := store.GetTable(ctx, tb.ID)
		mustNot(t, err)
		if diff := cmp.Diff(tb, got); diff != "" {
			t.Errorf("GetTable (-created +got):\n%s", diff)
		}
		_, err = store.GetTable(ctx, 424242)
		wantErr(t, err, errs.ErrNotFound, "table 424242 not found")
	})

	t.Run("names are unique per workspace, ignoring case", func(t *testing.T) {
		newStoredTable(t, db, wsA.ID, ada.ID, "orders")
		err := store.CreateTable(ctx, &table.Table{WorkspaceID: wsA.ID, Name: "ORDERS", Mode: table.ModeShared})
		wantErr(t, err, errs.ErrConflict, "already has a table named ORDERS")
		newStoredTable(t, db, wsB.ID, ada.ID, "orders")
		err = store.CreateTable(ctx, &table.Table{WorkspaceID: 777, Name: "x", Mode: table.ModeShared})
		wantErr(t, err, errs.ErrNotFound, "workspace 777 not found")
	})

	t.Run("list by workspace and across workspaces", func(t *testing.T) {
		list, total, err := store.ListTables(ctx, wsA.ID, identity.Page{Number: 1, Size: 1})
		mustNot(t, err)
		if total != 2 || len(list) != 1 || list[0].Name != "orders" {
			t.Errorf("page 1 of A = %d of %d, first %q", len(list), total, list[0].Name)
		}
		_, total, err = store.ListTables(ctx, 0, identity.Page{})
		mustNot(t, err)
		if total != 3 {
			t.Errorf("every workspace holds %d tables, want 3", total)
		}
	})

	t.Run("update", func(t *testing.T) {
		tb := newStoredTable(t, db, wsA.ID, ada.ID, "notes")
		got, err := store.UpdateTable(ctx, wsA.ID, tb.ID, func(c *table.Table) error {
			c.Name, c.Mode, c.ID, c.CreatorID = "memos", table.ModeShared, 1, 2
			_, _, err := c.SetFields([]table.FieldSpec{{ID: 1, Name: "text"}, {Name: "pinned", Type: table.TypeBoolean}})
			return err
		})
		mustNot(t, err)
		if got.ID != tb.ID || got.CreatorID != ada.ID || got.Revision != 2 || got.Name != "memos" || got.FieldSeq != 3 ||
			len(got.Fields) != 2 || got.Fields[1].ID != 3 {
			t.Errorf("updated = %+v", got)
		}
		reread, err := store.GetTable(ctx, tb.ID)
		mustNot(t, err)
		if diff := cmp.Diff(got, reread); diff != "" {
			t.Errorf("reread (-updated +reread):\n%s", diff)
		}
		_, err = store.UpdateTable(ctx, wsA.ID, tb.ID, func(c *table.Table) error { return errFromFn })
		if err != errFromFn {
			t.Errorf("fn's error = %v", err)
		}
		_, err = store.UpdateTable(ctx, wsA.ID, tb.ID, func(c *table.Table) error { c.Name = "Orders"; return nil })
		wantErr(t, err, errs.ErrConflict, "already has a table named Orders")
		_, err = store.UpdateTable(ctx, wsB.ID, tb.ID, func(*table.Table) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "not found")
	})

	t.Run("delete, and deleting the workspace deletes its tables", func(t *testing.T) {
		tb := newStoredTable(t, db, wsA.ID, ada.ID, "gone")
		wantErr(t, store.DeleteTable(ctx, wsB.ID, tb.ID), errs.ErrNotFound, "not found")
		mustNot(t, store.DeleteTable(ctx, wsA.ID, tb.ID))
		_, err := store.GetTable(ctx, tb.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		ws := newWorkspace(t, db, "Doomed", ada.ID)
		doomed := newStoredTable(t, db, ws.ID, ada.ID, "doomed")
		mustNot(t, db.Workspaces().DeleteWorkspace(ctx, ws.ID))
		_, err = store.GetTable(ctx, doomed.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})
}
