package table_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/tablestore"
)

// env is the table service over a fresh SQLite platform database, a rows
// file of its own, and the real access check of the identity service.
type env struct {
	db       *sqlstore.DB
	rows     *tablestore.Store
	svc      *tableapp.Service
	ws       identity.Workspace // owned by owner; member is a plain member
	other    identity.Workspace // owned by stranger
	owner    identity.Principal
	member   identity.Principal
	stranger identity.Principal
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(dir, "p.db")})
	mustNot(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.Migrate(ctx)
	mustNot(t, err)
	rows, err := tablestore.Open(ctx, tablestore.Config{SQLitePath: filepath.Join(dir, "tables.db")})
	mustNot(t, err)
	t.Cleanup(func() { _ = rows.Close() })
	ident := identityapp.New(db.Users(), db.Workspaces(), db.Tokens())
	e := &env{db: db, rows: rows, svc: tableapp.New(tableapp.Deps{Tables: db.Tables(), Rows: rows, Access: ident})}
	owner, member, stranger := e.user(t, "owner"), e.user(t, "member"), e.user(t, "stranger")
	e.ws = e.workspace(t, "team", owner)
	e.other = e.workspace(t, "elsewhere", stranger)
	mustNot(t, db.Workspaces().AddMember(ctx, &identity.Member{WorkspaceID: e.ws.ID, UserID: member, Role: identity.RoleMember}))
	e.owner, e.member, e.stranger = principal(owner), principal(member), principal(stranger)
	return e
}

func (e *env) user(t *testing.T, name string) int64 {
	t.Helper()
	u := &identity.User{Email: name + "@example.com", Name: name}
	mustNot(t, e.db.Users().CreateUser(context.Background(), u))
	return u.ID
}

func (e *env) workspace(t *testing.T, name string, owner int64) identity.Workspace {
	t.Helper()
	ws := &identity.Workspace{Name: name, Kind: identity.WorkspaceTeam, OwnerID: owner}
	mustNot(t, e.db.Workspaces().CreateWorkspace(context.Background(), ws))
	return *ws
}

func principal(id int64) identity.Principal {
	return identity.Principal{UserID: id, Scopes: []string{identity.ScopeAll}}
}

// todos is a per_user table: title (text, required), done (boolean).
func todos() tableapp.Input {
	return tableapp.Input{Name: "todos", Description: "the user's to-do list", Mode: table.ModePerUser, Fields: []table.FieldSpec{
		{Name: "title", Type: table.TypeText, Description: "what to do", Required: true},
		{Name: "done", Type: table.TypeBoolean, Description: "whether it is done"},
	}}
}

// create makes a table in the team workspace as p.
func (e *env) create(t *testing.T, p identity.Principal, in tableapp.Input) *table.Table {
	t.Helper()
	tb, err := e.svc.Create(context.Background(), p, e.ws.ID, in)
	mustNot(t, err)
	return tb
}

func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, target error, text string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q does not mention %q", err, text)
	}
}

func wantField(t *testing.T, err error, field, text string) {
	t.Helper()
	var fe *errs.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v, want a field error on %s", err, field)
	}
	if fe.Field != field || !strings.Contains(fe.Reason, text) {
		t.Errorf("error = %q, want field %s and a reason mentioning %q", err, field, text)
	}
}
