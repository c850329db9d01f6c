package identity_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// password is every test user's password.
const password = "correct-horse-battery"

// env is the identity service over a fresh SQLite database, with a clock
// the test moves by hand.
type env struct {
	db  *sqlstore.DB
	svc *identityapp.Service
	now time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	box, err := secret.NewBox(bytes.Repeat([]byte{9}, secret.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db"), Cipher: box})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	e := &env{db: db, now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	e.svc = identityapp.New(db.Users(), db.Workspaces(), db.Tokens(),
		identityapp.WithPasswordCost(bcrypt.MinCost), identityapp.WithClock(func() time.Time { return e.now }))
	return e
}

// advance moves the service's clock.
func (e *env) advance(d time.Duration) { e.now = e.now.Add(d) }

// person is a user with a signed-in console session.
type person struct {
	identity.User
	personal identity.Workspace
	p        identity.Principal // from a console session: every scope, every workspace
}

// user registers name@example.com and signs them in.
func (e *env) user(t *testing.T, name string, admin bool) person {
	t.Helper()
	ctx := context.Background()
	u, ws, err := e.svc.CreateUser(ctx, identityapp.UserInput{Email: name + "@example.com", Name: name, Password: password, IsAdmin: admin})
	if err != nil {
		t.Fatalf("create user %s: %v", name, err)
	}
	s, err := e.svc.Login(ctx, u.Email, password)
	if err != nil {
		t.Fatalf("login %s: %v", name, err)
	}
	return person{User: *u, personal: *ws, p: e.auth(t, s.Secret)}
}

// auth authenticates secret, failing the test when that fails.
func (e *env) auth(t *testing.T, secret string) identity.Principal {
	t.Helper()
	p, err := e.svc.Authenticate(context.Background(), secret)
	if err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	return p
}

// token issues a PAT to who and returns its secret and the principal it
// authenticates as.
func (e *env) token(t *testing.T, who identity.Principal, in identityapp.CreateTokenInput) (string, identity.Principal) {
	t.Helper()
	if in.Name == "" {
		in.Name = "test"
	}
	tok, err := e.svc.CreateToken(context.Background(), who, in)
	if err != nil {
		t.Fatalf("create token: %v", err)
	}
	return tok.Secret, e.auth(t, tok.Secret)
}

// team is a team workspace owned by olga, with adam as admin, mia and max
// as members, and otto, a registered user outside it.
type team struct {
	ws                         identity.Workspace
	olga, adam, mia, max, otto person
}

func (e *env) team(t *testing.T) *team {
	t.Helper()
	ctx := context.Background()
	tm := &team{olga: e.user(t, "olga", false), adam: e.user(t, "adam", false),
		mia: e.user(t, "mia", false), max: e.user(t, "max", false), otto: e.user(t, "otto", false)}
	name := "Olga's team"
	ws, err := e.svc.CreateWorkspace(ctx, tm.olga.p, identityapp.WorkspaceInput{Name: &name})
	if err != nil {
		t.Fatalf("create team workspace: %v", err)
	}
	tm.ws = *ws
	for _, m := range []struct {
		who  person
		role identity.Role
	}{{tm.adam, identity.RoleAdmin}, {tm.mia, identity.RoleMember}, {tm.max, identity.RoleMember}} {
		if _, err := e.svc.AddMember(ctx, tm.olga.p, ws.ID, m.who.Email, m.role); err != nil {
			t.Fatalf("add %s: %v", m.who.Name, err)
		}
	}
	return tm
}

// roles reads the members of a workspace from the store, by user name.
func (e *env) roles(t *testing.T, workspaceID int64) map[string]identity.Role {
	t.Helper()
	ms, err := e.db.Workspaces().ListMembers(context.Background(), workspaceID)
	if err != nil {
		t.Fatalf("list members: %v", err)
	}
	out := map[string]identity.Role{}
	for _, m := range ms {
		out[m.UserName] = m.Role
	}
	return out
}

// pats reads a user's personal access tokens from the store.
func (e *env) pats(t *testing.T, userID int64) []identity.Token {
	t.Helper()
	toks, err := e.db.Tokens().ListTokensOfUser(context.Background(), userID, identity.TokenPAT)
	if err != nil {
		t.Fatalf("list tokens: %v", err)
	}
	return toks
}

// wantKind fails the test unless err matches want (nil: no error).
func wantKind(t *testing.T, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("error = %v, want one matching %q", err, want)
	}
}

// wantField fails the test unless err is a FieldError naming field.
func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != field {
		t.Fatalf("error = %v, want a field error naming %q", err, field)
	}
}
