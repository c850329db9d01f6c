package conversation_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// Tenants of the tests: Ada and Bob each have a personal workspace, Ada
// also belongs to the team workspace, which holds botTeam; botBob lives in
// Bob's workspace.
const (
	ada, bob                        = int64(1), int64(2)
	wsAda, wsBob, wsTeam            = int64(10), int64(20), int64(30)
	botTeam, botBob, botNonexistent = int64(100), int64(200), int64(999)
)

// fakeAccess knows the members of each workspace and each user's personal
// workspace.
type fakeAccess struct {
	members  map[int64][]int64 // workspace -> users
	personal map[int64]int64   // user -> workspace
}

func (a fakeAccess) Authorize(_ context.Context, p identity.Principal, ws int64, _ identity.Role) (*identity.Member, error) {
	if !p.TokenAllowsWorkspace(ws) {
		return nil, errs.Forbidden("this token is not valid for workspace %d", ws)
	}
	for _, u := range a.members[ws] {
		if u == p.UserID {
			return &identity.Member{WorkspaceID: ws, UserID: u, Role: identity.RoleMember}, nil
		}
	}
	return nil, errs.Forbidden("you are not a member of workspace %d", ws)
}

func (a fakeAccess) PersonalWorkspace(_ context.Context, user int64) (int64, error) {
	if ws, ok := a.personal[user]; ok {
		return ws, nil
	}
	return 0, errs.NotFound("personal workspace of user", "x")
}

// fakeBots maps bots to their workspaces.
type fakeBots map[int64]int64

func (b fakeBots) BotWorkspace(_ context.Context, bot int64) (int64, error) {
	if ws, ok := b[bot]; ok {
		return ws, nil
	}
	return 0, errs.NotFound("bot", "x")
}

// env is the service over a fresh SQLite database.
type env struct {
	db  *sqlstore.DB
	svc *convapp.Service
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	access := fakeAccess{
		members:  map[int64][]int64{wsAda: {ada}, wsBob: {bob}, wsTeam: {ada}},
		personal: map[int64]int64{ada: wsAda, bob: wsBob},
	}
	bots := fakeBots{botTeam: wsTeam, botBob: wsBob}
	return &env{db: db, svc: convapp.New(db.Conversations(), db.Messages(), db.Chats(), access, bots)}
}

// caller returns a principal of user with every scope, restricted to the
// given workspaces (none: unrestricted).
func caller(user int64, workspaces ...int64) identity.Principal {
	return identity.Principal{UserID: user, Scopes: []string{identity.ScopeAll}, Workspaces: workspaces}
}

// conv creates a conversation as p, failing the test on error.
func (e *env) conv(t *testing.T, p identity.Principal, in convapp.CreateInput) *conversation.Conversation {
	t.Helper()
	c, err := e.svc.Create(context.Background(), p, in)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return c
}

func text(role, content string) convapp.MessageInput {
	return convapp.MessageInput{Role: role, Content: content, ContentType: conversation.ContentText}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr fails unless err matches kind and its text contains want.
func wantErr(t *testing.T, err, kind error, want string) {
	t.Helper()
	if !errors.Is(err, kind) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v; want one matching %v that mentions %q", err, kind, want)
	}
}

// wantField fails unless err is a FieldError naming field.
func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != field {
		t.Fatalf("error = %v; want an invalid %s", err, field)
	}
}
