package table_test

import (
	"context"
	"testing"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestCreateRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		edit  func(*tableapp.Input)
		field string
		says  string
	}{
		{"name missing", func(in *tableapp.Input) { in.Name = "" }, "name", "is required"},
		{"name not an identifier", func(in *tableapp.Input) { in.Name = "to-dos" }, "name", "letters, digits or _"},
		{"name of a built-in tool", func(in *tableapp.Input) { in.Name = "setKeywordMemory" }, "name", "built-in tool"},
		{"unknown mode", func(in *tableapp.Input) { in.Mode = "private" }, "mode", "per_user, shared or read_only"},
		{"no fields", func(in *tableapp.Input) { in.Fields = nil }, "fields", "at least one field"},
		{"reserved field", func(in *tableapp.Input) { in.Fields[1].Name = "User_ID" }, "fields[1].name", "system column"},
		{"duplicate field", func(in *tableapp.Input) { in.Fields[1].Name = "TITLE" }, "fields[1].name", "another field"},
		{"unknown type", func(in *tableapp.Input) { in.Fields[0].Type = "json" }, "fields[0].type", "text, integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := todos()
			c.edit(&in)
			_, err := e.svc.Create(ctx, e.owner, e.ws.ID, in)
			wantField(t, err, c.field, c.says)
		})
	}
	t.Run("access", func(t *testing.T) {
		_, err := e.svc.Create(ctx, e.stranger, e.ws.ID, todos())
		wantErr(t, err, errs.ErrForbidden, "not a member")
		botOnly := e.owner
		botOnly.Scopes = []string{identity.ScopeBot}
		_, err = e.svc.Create(ctx, botOnly, e.ws.ID, todos())
		wantErr(t, err, errs.ErrForbidden, `"table" scope`)
	})
	t.Run("names are unique in a workspace", func(t *testing.T) {
		e.create(t, e.member, todos())
		in := todos()
		in.Name = "TODOS"
		_, err := e.svc.Create(ctx, e.owner, e.ws.ID, in)
		wantErr(t, err, errs.ErrConflict, "already has a table named TODOS")
		_, err = e.svc.Create(ctx, e.stranger, e.other.ID, todos())
		mustNot(t, err)
	})
}

func TestReadRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	got, err := e.svc.Get(ctx, e.member, tb.ID)
	mustNot(t, err)
	if got.Name != "todos" || got.Mode != table.ModePerUser || len(got.Fields) != 2 || got.Fields[1].ID != 2 {
		t.Errorf("Get = %+v", got)
	}
	_, err = e.svc.Get(ctx, e.stranger, tb.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
	list, total, err := e.svc.List(ctx, e.member, e.ws.ID, identity.Page{Number: 1, Size: 10})
	mustNot(t, err)
	if total != 1 || len(list) != 1 {
		t.Errorf("List = %d of %d", len(list), total)
	}
	_, _, err = e.svc.List(ctx, e.stranger, e.ws.ID, identity.Page{})
	wantErr(t, err, errs.ErrForbidden, "not a member")
}

func TestUpdateRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	_, err := e.svc.InsertRows(ctx, e.owner, tb.ID, table.DataOnline, []tableapp.NewRow{{UserID: "u1", Values: map[string]any{"title": "milk", "done": true}}})
	mustNot(t, err)

	name, mode := "tasks", table.ModeShared
	got, err := e.svc.Update(ctx, e.member, tb.ID, tableapp.Patch{Name: &name, Mode: &mode, Fields: []table.FieldSpec{
		{ID: 1, Name: "task", Description: "what to do", Required: true}, // renamed; done is dropped
		{Name: "priority", Type: table.TypeInteger},
	}})
	mustNot(t, err)
	if got.Name != "tasks" || got.Mode != table.ModeShared || got.Revision != 2 || len(got.Fields) != 2 || got.Fields[1].ID != 3 {
		t.Fatalf("updated = %+v", got)
	}
	_, rows, _, err := e.svc.ListRows(ctx, e.owner, tb.ID, tableapp.RowsQuery{Data: table.DataOnline})
	mustNot(t, err)
	if len(rows) != 1 || rows[0].Values["task"] != "milk" || rows[0].Values["priority"] != nil || len(rows[0].Values) != 2 {
		t.Errorf("rows after the change = %+v", rows)
	}

	_, err = e.svc.Update(ctx, e.owner, tb.ID, tableapp.Patch{Fields: []table.FieldSpec{{ID: 1, Name: "task", Type: table.TypeInteger}}})
	wantField(t, err, "fields[0].type", "cannot change")
	_, err = e.svc.Update(ctx, e.owner, tb.ID, tableapp.Patch{Fields: []table.FieldSpec{{ID: 2, Name: "gone"}}})
	wantField(t, err, "fields[0].id", "no field with id 2")
	_, err = e.svc.Update(ctx, e.stranger, tb.ID, tableapp.Patch{Name: &name})
	wantErr(t, err, errs.ErrNotFound, "not found")
}

func TestDeleteRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	wantErr(t, e.svc.Delete(ctx, e.member, tb.ID), errs.ErrForbidden, "creator or an admin")
	wantErr(t, e.svc.Delete(ctx, e.stranger, tb.ID), errs.ErrNotFound, "not found")
	mustNot(t, e.svc.Delete(ctx, e.owner, tb.ID))
	ids, err := e.rows.TableIDs(ctx)
	if err != nil || len(ids) != 0 {
		t.Errorf("rows left after the delete: %v, %v", ids, err)
	}
	mine := e.create(t, e.member, todos())
	mustNot(t, e.svc.Delete(ctx, e.member, mine.ID))
}

func TestSweepDropsRowsWithoutDefinition(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kept := e.create(t, e.owner, todos())
	orphan := &table.Table{ID: 987654321, Name: "orphan", Mode: table.ModeShared, Fields: []table.Field{{ID: 1, Name: "x", Type: table.TypeText}}}
	mustNot(t, e.rows.CreateTable(ctx, orphan))
	n, err := e.svc.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 dropped", n, err)
	}
	ids, _ := e.rows.TableIDs(ctx)
	if len(ids) != 1 || ids[0] != kept.ID {
		t.Errorf("tables with rows after the sweep = %v, want only %d", ids, kept.ID)
	}
}

func TestUnavailableWithoutRowsStorage(t *testing.T) {
	e := newEnv(t)
	svc := tableapp.New(tableapp.Deps{Tables: e.db.Tables(), Access: nil, Unavailable: "tables need PERGOLA_TABLES_DSN"})
	_, err := svc.Create(context.Background(), e.owner, e.ws.ID, todos())
	wantErr(t, err, errs.ErrUnavailable, "PERGOLA_TABLES_DSN")
	wantErr(t, svc.BindTables(context.Background(), e.ws.ID, nil), errs.ErrUnavailable, "PERGOLA_TABLES_DSN")
}
