package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestBindTables(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	theirs, err := e.svc.Create(ctx, e.stranger, e.other.ID, todos())
	mustNot(t, err)
	mustNot(t, e.svc.BindTables(ctx, e.ws.ID, []bot.TableRef{{TableID: tb.ID}}))
	wantField(t, e.svc.BindTables(ctx, e.ws.ID, []bot.TableRef{{TableID: tb.ID}, {TableID: theirs.ID}}), "tables[1].table_id", "does not exist in workspace")
	wantField(t, e.svc.BindTables(ctx, e.ws.ID, []bot.TableRef{{TableID: 424242}}), "tables[0].table_id", "does not exist")
	wantField(t, e.svc.BindTables(ctx, e.ws.ID, []bot.TableRef{{TableID: tb.ID}, {TableID: tb.ID}}), "tables[1].table_id", "bound twice")
}

// call runs the tool as the given end user, in a debug (draft) or
// published run.
func call(t *testing.T, tl tool.BaseTool, ws int64, user string, draft bool, args string) string {
	t.Helper()
	version := int64(1)
	if draft {
		version = 0
	}
	ctx := bot.WithRunScope(context.Background(), bot.RunScope{BotID: 1, WorkspaceID: ws, Version: version, UserID: user})
	out, err := tl.(tool.InvokableTool).InvokableRun(ctx, args)
	if err != nil {
		t.Fatalf("InvokableRun(%s): %v", args, err)
	}
	return out
}

func TestSQLTool(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	b := &bot.Bot{ID: 1, WorkspaceID: e.ws.ID}
	tools, err := e.svc.BotTools(ctx, b, &bot.Config{Tables: []bot.TableRef{{TableID: tb.ID}, {TableID: 424242}}})
	mustNot(t, err)
	if len(tools) != 1 {
		t.Fatalf("%d tools, want one (the unknown table is left out)", len(tools))
	}
	info, _ := tools[0].Info(ctx)
	for _, want := range []string{"MySQL dialect", "title text, required: what to do", "done boolean: whether it is done", "only the current user's rows"} {
		if info.Name != "todos" || !strings.Contains(info.Desc, want) {
			t.Errorf("tool %s: description does not say %q:\n%s", info.Name, want, info.Desc)
		}
	}
	tl := tools[0]
	ws := e.ws.ID

	if got := call(t, tl, ws, "u1", false, `{"sql":"INSERT INTO todos (title) VALUES ('milk')"}`); !strings.HasPrefix(got, `{"affected_rows":1,"insert_id":`) {
		t.Errorf("insert answered %s", got)
	}
	call(t, tl, ws, "u2", false, `{"sql":"INSERT INTO todos (title, done) VALUES ('u2 secret', TRUE)"}`)
	call(t, tl, ws, "u1", true, `{"sql":"INSERT INTO todos (title) VALUES ('draft only')"}`)
	if got := call(t, tl, ws, "u1", false, `{"sql":"SELECT title, done FROM todos"}`); got != `{"columns":["title","done"],"rows":[["milk",null]],"row_count":1}` {
		t.Errorf("u1's online rows = %s", got)
	}
	if got := call(t, tl, ws, "u1", true, `{"sql":"SELECT title FROM todos"}`); got != `{"columns":["title"],"rows":[["draft only"]],"row_count":1}` {
		t.Errorf("u1's draft rows = %s", got)
	}

	errorsFor := map[string]string{
		`{"sql":"SELECT * FROM users"}`:                 "error: only table todos can be used",
		`{"sql":"SELECT * FROM todos; DROP TABLE x"}`:   "error: write exactly one statement",
		`{"sql":"INSERT INTO todos (done) VALUES (1)"}`: "error: column title is required",
		`{"sql":""}`:                       `error: the arguments must be {"sql"`,
		`not json`:                         `error: the arguments must be {"sql"`,
		`{"sql":"SELECT nope FROM todos"}`: `error: unknown column "nope"; the columns of todos are: id, title, done, created_at, updated_at`,
	}
	for args, want := range errorsFor {
		if got := call(t, tl, ws, "u1", false, args); !strings.HasPrefix(got, want) {
			t.Errorf("%s answered %q, want it to start with %q", args, got, want)
		}
	}
	if got := call(t, tl, ws, "", false, `{"sql":"SELECT * FROM todos"}`); !strings.Contains(got, "no user id") {
		t.Errorf("without an end user: %s", got)
	}
	out, err := tl.(tool.InvokableTool).InvokableRun(ctx, `{"sql":"SELECT * FROM todos"}`)
	if err != nil || !strings.Contains(out, "only inside a chat") {
		t.Errorf("without a run: %q, %v", out, err)
	}

	// The tool reads the table's definition at each call: a renamed field
	// is known at once, and a deleted table says so.
	_, err = e.svc.Update(ctx, e.owner, tb.ID, tableapp.Patch{Fields: []table.FieldSpec{{ID: 1, Name: "task", Required: true}, {ID: 2, Name: "done"}}})
	mustNot(t, err)
	if got := call(t, tl, ws, "u1", false, `{"sql":"SELECT task FROM todos"}`); got != `{"columns":["task"],"rows":[["milk"]],"row_count":1}` {
		t.Errorf("after the rename: %s", got)
	}
	mustNot(t, e.svc.Delete(ctx, e.owner, tb.ID))
	if got := call(t, tl, ws, "u1", false, `{"sql":"SELECT * FROM todos"}`); !strings.Contains(got, "was deleted") {
		t.Errorf("after the delete: %s", got)
	}
}

func TestRunSQLForBuilders(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tb := e.create(t, e.owner, todos())
	_, err := e.svc.RunSQL(ctx, e.member, tb.ID, table.Scope{Data: table.DataDraft}, "SELECT * FROM todos")
	wantField(t, err, "user_id", "keeps rows per user")
	res, err := e.svc.RunSQL(ctx, e.member, tb.ID, table.Scope{Data: table.DataDraft, UserID: "u1"}, "INSERT INTO todos (title) VALUES ('a')")
	mustNot(t, err)
	if !res.Write || res.Affected != 1 {
		t.Errorf("RunSQL = %+v", res)
	}
	_, err = e.svc.RunSQL(ctx, e.member, tb.ID, table.Scope{Data: table.DataDraft, UserID: "u1"}, "DROP TABLE todos")
	wantErr(t, err, errs.ErrInvalid, "only SELECT, INSERT, UPDATE and DELETE")
}
