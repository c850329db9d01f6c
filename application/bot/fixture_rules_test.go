package bot_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	botapp "github.com/pergola-ai/pergola/application/bot"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/domain/variable"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// fakeModels is a model registry held in memory, kept sorted by id.
type fakeModels struct{ list []llm.Model }

func (f *fakeModels) Get(_ context.Context, id string) (*llm.Model, error) {
	for _, m := range f.list {
		if m.ID == id {
			return &m, nil
		}
	}
	return nil, errs.NotFound("model", id)
}

func (f *fakeModels) List(context.Context) ([]llm.Model, error) { return slices.Clone(f.list), nil }

func (f *fakeModels) remove(id string) {
	f.list = slices.DeleteFunc(f.list, func(m llm.Model) bool { return m.ID == id })
}

// env is the bot service over a fresh SQLite database, the real access
// check of the identity service, and the models "plain" (no tools) and
// "tooly" (tools), plus the disabled "aaa-off".
type env struct {
	db     *sqlstore.DB
	svc    *botapp.Service
	models *fakeModels
	ws     identity.Workspace // owned by owner; member is a plain member
	other  identity.Workspace // owned by stranger
	owner  identity.Principal
	member identity.Principal
	// stranger belongs to other only.
	stranger identity.Principal
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")})
}

// newEnvOn is newEnv on the database cfg names.
func newEnvOn(t *testing.T, cfg sqlstore.Config) *env {
	t.Helper()
	ctx := context.Background()
	box, err := secret.NewBox(bytes.Repeat([]byte{5}, secret.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Cipher = box
	db, err := sqlstore.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	ident := identityapp.New(db.Users(), db.Workspaces(), db.Tokens())
	models := &fakeModels{list: []llm.Model{
		{ID: "aaa-off", Enabled: false, Capabilities: llm.Capabilities{Tools: true}},
		{ID: "plain", Enabled: true},
		{ID: "tooly", Enabled: true, Capabilities: llm.Capabilities{Tools: true}},
	}}
	e := &env{db: db, models: models, svc: botapp.New(db.Bots(), db.Variables(), ident, models)}
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

// principal is a console session of user id: every scope, every workspace.
func principal(id int64) identity.Principal {
	return identity.Principal{UserID: id, Scopes: []string{identity.ScopeAll}}
}

// withScopes returns p with only the given token scopes.
func withScopes(p identity.Principal, scopes ...string) identity.Principal {
	p.Scopes = scopes
	return p
}

// create makes a bot in the team workspace as the owner.
func (e *env) create(t *testing.T, cfg bot.Config) *bot.Bot {
	t.Helper()
	b, err := e.svc.Create(context.Background(), e.owner, e.ws.ID, cfg)
	mustNot(t, err)
	return b
}

// withVariables is a valid configuration defining city (default Paris)
// and mood, on the model with tools.
func withVariables(name string) bot.Config {
	return bot.Config{Name: name, Prompt: "You live in {{city}}.", Model: bot.ModelSettings{ModelID: "tooly"},
		Variables: []variable.Definition{{Keyword: "city", Default: "Paris"}, {Keyword: "mood"}}}
}

func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr fails the test unless err matches target and mentions text.
func wantErr(t *testing.T, err, target error, text string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q does not mention %q", err, text)
	}
}

// wantField fails the test unless err is a FieldError on field.
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
