package plugin_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
	"github.com/pergola-ai/pergola/infra/egress"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// petsDoc is the OpenAPI document of the test API; its server is
// replaced by the test server's URL.
const petsDoc = `openapi: 3.0.3
info: {title: Pets, description: A pet shop., version: "1"}
servers: [{url: "https://pets.example/v1"}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      parameters:
        - {name: limit, in: query, required: true, schema: {type: integer, maximum: 50}}
        - {name: status, in: query, schema: {type: string, enum: [available, sold]}}
        - {name: X-Trace, in: header, schema: {type: string}}
    post:
      operationId: addPet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string}
                age: {type: integer}
  /pets/{petId}:
    get:
      operationId: getPet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
  /redirect:
    get:
      operationId: redirect
  /big:
    get:
      operationId: big
  /secure:
    get:
      operationId: secure
`

// env is the plugin service over a fresh SQLite database, the real access
// check of the identity service, the egress guard allowing 127.0.0.1 and
// the test API.
type env struct {
	db       *sqlstore.DB
	svc      *pluginapp.Service
	api      *api
	mcp      *fakeMCP
	clock    *clock
	ws       identity.Workspace
	other    identity.Workspace
	owner    identity.Principal
	member   identity.Principal
	stranger identity.Principal
	admin    identity.Principal
}

// clock is a settable time, so tests can move past token lifetimes.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newEnv(t testing.TB, allow ...string) *env {
	t.Helper()
	return newEnvOn(t, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")}, allow...)
}

// newEnvOn is newEnv on the database cfg names.
func newEnvOn(t testing.TB, cfg sqlstore.Config, allow ...string) *env {
	t.Helper()
	ctx := context.Background()
	box, err := secret.NewBox(bytes.Repeat([]byte{5}, secret.KeySize))
	mustNot(t, err)
	cfg.Cipher = box
	db, err := sqlstore.Open(ctx, cfg)
	mustNot(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.Migrate(ctx)
	mustNot(t, err)
	if allow == nil {
		allow = []string{"127.0.0.1"}
	}
	guard, err := egress.New(egress.Config{Allow: allow, TotalTimeout: 5 * time.Second, MaxResponseBytes: 1 << 20})
	mustNot(t, err)
	e := &env{db: db, api: newAPI(t), mcp: newFakeMCP(), clock: &clock{now: time.Now()}}
	ident := identityapp.New(db.Users(), db.Workspaces(), db.Tokens())
	e.svc = pluginapp.New(pluginapp.Deps{Store: db.Plugins(), Stats: db.Plugins(), Access: ident, HTTP: guard.Client(),
		MCP: e.mcp, Builtins: testBuiltins(), Now: e.clock.Now, StatsEvery: time.Hour})
	mustNot(t, e.svc.SyncCatalog(ctx))
	owner, member, stranger := e.user(t, "owner"), e.user(t, "member"), e.user(t, "stranger")
	e.ws, e.other = e.workspace(t, "team", owner), e.workspace(t, "elsewhere", stranger)
	mustNot(t, db.Workspaces().AddMember(ctx, &identity.Member{WorkspaceID: e.ws.ID, UserID: member, Role: identity.RoleMember}))
	e.owner, e.member, e.stranger = principal(owner), principal(member), principal(stranger)
	e.admin = identity.Principal{UserID: e.user(t, "root"), IsAdmin: true, Scopes: []string{identity.ScopeAll}}
	return e
}

func (e *env) user(t testing.TB, name string) int64 {
	t.Helper()
	u := &identity.User{Email: name + "@example.com", Name: name}
	mustNot(t, e.db.Users().CreateUser(context.Background(), u))
	return u.ID
}

func (e *env) workspace(t testing.TB, name string, owner int64) identity.Workspace {
	t.Helper()
	ws := &identity.Workspace{Name: name, Kind: identity.WorkspaceTeam, OwnerID: owner}
	mustNot(t, e.db.Workspaces().CreateWorkspace(context.Background(), ws))
	return *ws
}

func principal(id int64) identity.Principal {
	return identity.Principal{UserID: id, Scopes: []string{identity.ScopeAll}}
}

// pets registers the test API in the team workspace with auth.
func (e *env) pets(t testing.TB, name string, auth plugin.Auth) *plugin.Plugin {
	t.Helper()
	pl, _, err := e.svc.Create(context.Background(), e.owner, e.ws.ID, pluginapp.Input{
		Name: name, OpenAPI: petsDoc, ServerURL: e.api.srv.URL + "/v1", Auth: auth})
	mustNot(t, err)
	return pl
}

// tool returns the bound tool of a bot of the team workspace.
func (e *env) tool(t testing.TB, pl *plugin.Plugin, name, version string) tool.InvokableTool {
	t.Helper()
	b := &bot.Bot{ID: 1, WorkspaceID: e.ws.ID}
	tools, err := e.svc.BotTools(context.Background(), b, &bot.Config{Plugins: []bot.PluginTool{{PluginID: pl.ID, Tool: name, Version: version}}})
	mustNot(t, err)
	if len(tools) != 1 {
		t.Fatalf("BotTools gave %d tools", len(tools))
	}
	return tools[0].(tool.InvokableTool)
}

// call runs a bound tool the way the runtime does.
func call(t testing.TB, tl tool.InvokableTool, args string) (string, error) {
	t.Helper()
	return tl.InvokableRun(context.Background(), args)
}

func mustNot(t testing.TB, err error) {
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

// wantText fails the test unless err (the text the model reads) says text.
func wantText(t *testing.T, err error, text string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), text) {
		t.Fatalf("tool error = %v, want one saying %q", err, text)
	}
}
