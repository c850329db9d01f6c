package table_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// TestAdminRowsAreAudited: a platform administrator who is no member of
// the workspace reads, adds, changes and deletes rows of its table; each
// call writes exactly one JSON audit line naming the administrator, the
// token, the table, its workspace and the row. Refused calls write none.
func TestAdminRowsAreAudited(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var logs bytes.Buffer
	svc := tableapp.New(tableapp.Deps{Tables: e.db.Tables(), Rows: e.rows,
		Access: identityapp.New(e.db.Users(), e.db.Workspaces(), e.db.Tokens()), Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	tb := e.create(t, e.owner, todos())
	admin := identity.Principal{UserID: e.user(t, "admin"), IsAdmin: true, TokenID: 77, Scopes: []string{identity.ScopeAdmin}}
	online := table.DataOnline

	_, err := svc.AdminInsertRows(ctx, e.owner, tb.ID, online, []tableapp.NewRow{{Values: map[string]any{"title": "x"}}})
	wantErr(t, err, errs.ErrForbidden, "administrator")
	_, err = svc.AdminInsertRows(ctx, admin, 987654, online, []tableapp.NewRow{{Values: map[string]any{"title": "x"}}})
	wantErr(t, err, errs.ErrNotFound, "table 987654 not found")
	_, err = svc.AdminInsertRows(ctx, admin, tb.ID, online, []tableapp.NewRow{{Values: map[string]any{"done": true}}})
	wantField(t, err, "rows[0].title", "is required")
	wantErr(t, svc.AdminDeleteRow(ctx, admin, tb.ID, online, 999), errs.ErrNotFound, "row 999 not found")
	if logs.Len() != 0 {
		t.Fatalf("refused calls logged %s", logs.String())
	}

	ids, err := svc.AdminInsertRows(ctx, admin, tb.ID, online, []tableapp.NewRow{{UserID: "u1", Values: map[string]any{"title": "milk"}}})
	mustNot(t, err)
	wantAudit(t, &logs, "table.rows.insert", admin, tb, "row_ids", []any{float64(ids[0])})
	mustNot(t, svc.AdminUpdateRow(ctx, admin, tb.ID, online, ids[0], map[string]any{"done": true}, nil))
	wantAudit(t, &logs, "table.rows.update", admin, tb, "row_id", float64(ids[0]))
	_, rows, total, err := svc.AdminListRows(ctx, admin, tb.ID, tableapp.RowsQuery{Data: online, Page: identity.Page{Number: 1, Size: 10}})
	mustNot(t, err)
	if total != 1 || rows[0].Values["done"] != true {
		t.Errorf("admin rows = %+v (total %d)", rows, total)
	}
	wantAudit(t, &logs, "table.rows.read", admin, tb, "total", float64(1))
	_, own, _, err := e.svc.ListRows(ctx, e.owner, tb.ID, tableapp.RowsQuery{Data: online})
	mustNot(t, err)
	if len(own) != 1 || own[0].ID != ids[0] {
		t.Errorf("the owner sees %+v after the administrator's insert", own)
	}
	mustNot(t, svc.AdminDeleteRow(ctx, admin, tb.ID, online, ids[0]))
	wantAudit(t, &logs, "table.rows.delete", admin, tb, "row_id", float64(ids[0]))
}

// wantAudit checks that logs holds exactly one JSON audit line for action
// with key = want, and empties it.
func wantAudit(t *testing.T, logs *bytes.Buffer, action string, admin identity.Principal, tb *table.Table, key string, want any) {
	t.Helper()
	defer logs.Reset()
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%s: want one audit line, got %q", action, logs.String())
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
		t.Fatalf("%s: audit line %q: %v", action, lines[0], err)
	}
	if line["audit"] != true || line["action"] != action || line["admin_user_id"] != strconv.FormatInt(admin.UserID, 10) ||
		line["token_id"] != float64(admin.TokenID) || line["table_id"] != float64(tb.ID) ||
		line["workspace_id"] != float64(tb.WorkspaceID) || !equalJSON(line[key], want) {
		t.Errorf("%s: audit line = %v", action, line)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
