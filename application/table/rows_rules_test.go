package table_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestRowRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	d := table.DataDraft

	ids, err := e.svc.InsertRows(ctx, e.member, tb.ID, d, []tableapp.NewRow{
		{UserID: "u1", Values: map[string]any{"title": "milk", "done": "yes"}},
		{UserID: "u2", Values: map[string]any{"title": "bread"}},
	})
	mustNot(t, err)
	_, err = e.svc.InsertRows(ctx, e.member, tb.ID, d, []tableapp.NewRow{{Values: map[string]any{"done": true}}})
	wantField(t, err, "rows[0].title", "is required")
	_, err = e.svc.InsertRows(ctx, e.member, tb.ID, d, []tableapp.NewRow{{Values: map[string]any{"title": "x", "color": "red"}}})
	wantField(t, err, "rows[0].color", "no field")
	_, err = e.svc.InsertRows(ctx, e.member, tb.ID, d, []tableapp.NewRow{{Values: map[string]any{"title": "x", "done": "perhaps"}}})
	wantField(t, err, "rows[0].done", "true or false")

	_, rows, total, err := e.svc.ListRows(ctx, e.member, tb.ID, tableapp.RowsQuery{Data: d,
		Filters: []table.Filter{{Field: "done", Op: table.OpEq, Value: "true"}}, Page: identity.Page{Number: 1, Size: 10}})
	mustNot(t, err)
	if total != 1 || rows[0].ID != ids[0] || rows[0].UserID != "u1" {
		t.Errorf("done rows = %+v (total %d)", rows, total)
	}
	_, _, _, err = e.svc.ListRows(ctx, e.member, tb.ID, tableapp.RowsQuery{Data: d, Filters: []table.Filter{{Field: "done", Op: table.OpContains, Value: "t"}}})
	wantField(t, err, "filter[0]", "text columns only")
	_, _, _, err = e.svc.ListRows(ctx, e.member, tb.ID, tableapp.RowsQuery{Data: d, Filters: []table.Filter{{Field: "color", Op: table.OpEq, Value: "x"}}})
	wantField(t, err, "filter[0]", `no column "color"`)
	_, rows, _, err = e.svc.ListRows(ctx, e.member, tb.ID, tableapp.RowsQuery{Data: table.DataOnline})
	mustNot(t, err)
	if len(rows) != 0 {
		t.Errorf("online rows = %v; the rows were added to the draft", rows)
	}

	mustNot(t, e.svc.UpdateRow(ctx, e.member, tb.ID, d, ids[1], map[string]any{"done": true}, nil))
	err = e.svc.UpdateRow(ctx, e.member, tb.ID, d, ids[1], map[string]any{"title": nil}, nil)
	wantField(t, err, "values.title", "is required")
	wantErr(t, e.svc.UpdateRow(ctx, e.member, tb.ID, d, 999, map[string]any{"done": true}, nil), errs.ErrNotFound, "row 999 not found")
	mustNot(t, e.svc.DeleteRow(ctx, e.member, tb.ID, d, ids[0]))
	wantErr(t, e.svc.DeleteRow(ctx, e.member, tb.ID, d, ids[0]), errs.ErrNotFound, "not found")
	wantErr(t, e.svc.DeleteRow(ctx, e.stranger, tb.ID, d, ids[1]), errs.ErrNotFound, "table")
}

func TestCSVRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	file := "Title,DONE,user_id,id\n" +
		"milk,true,u1,99\n" +
		",false,u1,\n" + // title is required
		"bread,,u2,\n" +
		"eggs,maybe,u2,\n" + // not a boolean
		"tea,1\n" + // too few cells
		"\"jam, \"\"fig\"\"\",0,u3,\n"
	rep, err := e.svc.ImportCSV(ctx, e.owner, tb.ID, table.DataOnline, strings.NewReader(file))
	mustNot(t, err)
	want := &tableapp.ImportReport{Inserted: 3, Errors: []tableapp.LineError{
		{Line: 3, Message: "line 3.title: is required"},
		{Line: 5, Message: "line 5.done: must be true or false"},
		{Line: 6, Message: "has 2 cells; the header has 4"},
	}}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("import report (-want +got):\n%s", diff)
	}
	_, err = e.svc.ImportCSV(ctx, e.owner, tb.ID, table.DataOnline, strings.NewReader("title,color\nx,red\n"))
	wantField(t, err, "file", `"color", is not a field`)

	var out bytes.Buffer
	mustNot(t, e.svc.ExportCSV(ctx, e.member, tb.ID, table.DataOnline, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || lines[0] != "id,user_id,title,done,created_at,updated_at" ||
		!strings.Contains(lines[1], ",u1,milk,true,") || !strings.Contains(lines[2], ",u2,bread,,") ||
		!strings.Contains(lines[3], `,u3,"jam, ""fig""",false,`) {
		t.Errorf("export:\n%s", out.String())
	}
	// An export imports again, into the other data.
	rep, err = e.svc.ImportCSV(ctx, e.owner, tb.ID, table.DataDraft, strings.NewReader(out.String()))
	mustNot(t, err)
	if rep.Inserted != 3 || len(rep.Errors) != 0 {
		t.Errorf("re-import = %+v", rep)
	}
}

func TestAdminList(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	_, err := e.svc.Create(ctx, e.stranger, e.other.ID, todos())
	mustNot(t, err)
	_, err = e.svc.InsertRows(ctx, e.owner, tb.ID, table.DataDraft, []tableapp.NewRow{{Values: map[string]any{"title": "x"}}})
	mustNot(t, err)
	_, _, err = e.svc.AdminList(ctx, e.owner, 0, identity.Page{})
	wantErr(t, err, errs.ErrForbidden, "administrator")
	admin := identity.Principal{UserID: 1, IsAdmin: true, Scopes: []string{identity.ScopeAll}}
	list, total, err := e.svc.AdminList(ctx, admin, 0, identity.Page{Number: 1, Size: 50})
	mustNot(t, err)
	if total != 2 || len(list) != 2 {
		t.Fatalf("admin list = %d of %d", len(list), total)
	}
	for _, s := range list {
		if s.Table.ID == tb.ID && (s.Size.DraftRows != 1 || s.Size.OnlineRows != 0) {
			t.Errorf("size of %s = %+v", s.Table.Name, s.Size)
		}
	}
	one, total, err := e.svc.AdminList(ctx, admin, e.other.ID, identity.Page{})
	mustNot(t, err)
	if total != 1 || one[0].Table.WorkspaceID != e.other.ID {
		t.Errorf("admin list of one workspace = %+v", one)
	}
}
