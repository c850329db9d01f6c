package bot_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	botapp "github.com/pergola-ai/pergola/application/bot"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/memory"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// twoProcesses is the bot service of two processes over one database,
// each with its own caches (identity and published versions), kept fresh
// through one in-process bus.
type twoProcesses struct {
	*env
	a, b   *botapp.Service
	identA *identityapp.Service
	stmts  *sqlstore.StatementCounter
}

func newTwoProcesses(t *testing.T, cfg sqlstore.Config) *twoProcesses {
	t.Helper()
	e := newEnvOn(t, cfg)
	stmts, err := e.db.CountStatements()
	mustNot(t, err)
	tp := &twoProcesses{env: e, stmts: stmts}
	bus := memory.NewInvalidationBus()
	tp.a, tp.identA = tp.process(t, bus)
	tp.b, _ = tp.process(t, bus)
	for bus.Listeners() < 2 {
		time.Sleep(time.Millisecond)
	}
	return tp
}

func (tp *twoProcesses) process(t *testing.T, bus *memory.InvalidationBus) (*botapp.Service, *identityapp.Service) {
	hub := invalidation.NewHub(bus, invalidation.Options{TTL: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	s := identityapp.NewCachedStores(hub, 100, tp.db.Users(), tp.db.Workspaces(), tp.db.Tokens())
	ident := identityapp.New(s.Users, s.Workspaces, s.Tokens)
	return botapp.New(tp.db.Bots(), tp.db.Variables(), ident, tp.models, botapp.WithCache(hub, 10)), ident
}

func (tp *twoProcesses) statements(fn func()) int64 {
	before := len(tp.stmts.Statements())
	fn()
	return int64(len(tp.stmts.Statements()) - before)
}

func forEachStorage(t *testing.T, test func(t *testing.T, tp *twoProcesses)) {
	storages := map[string]func(t *testing.T) sqlstore.Config{
		"sqlite": func(t *testing.T) sqlstore.Config {
			return sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")}
		},
		"mariadb": func(t *testing.T) sqlstore.Config { return sqlstore.Config{DSN: testenv.MySQL(t)} },
	}
	for name, cfg := range storages {
		t.Run(name, func(t *testing.T) { test(t, newTwoProcesses(t, cfg(t))) })
	}
}

// resolve runs ResolveForChat on a published version and returns the
// version number and prompt it gives.
func resolve(t *testing.T, s *botapp.Service, p identity.Principal, botID int64) (int64, string, error) {
	t.Helper()
	_, cfg, n, err := s.ResolveForChat(context.Background(), p, botID, false)
	if err != nil {
		return 0, "", err
	}
	return n, cfg.Prompt, nil
}

func (tp *twoProcesses) publish(t *testing.T, s *botapp.Service, botID int64, prompt string, connectors ...string) {
	t.Helper()
	_, err := s.Update(context.Background(), tp.owner, botID, func(c *bot.Config) error { c.Prompt = prompt; return nil })
	mustNot(t, err)
	_, err = s.Publish(context.Background(), tp.owner, botID, connectors)
	mustNot(t, err)
}

// TestAWarmChatReadsNothingToResolveItsBot counts the statements of
// resolving the published bot a chat runs: the bot, the caller's
// membership and the version the first time, none after.
func TestAWarmChatReadsNothingToResolveItsBot(t *testing.T) {
	forEachStorage(t, func(t *testing.T, tp *twoProcesses) {
		b := tp.create(t, withVariables("Cached"))
		tp.publish(t, tp.a, b.ID, "v1")
		var cold, warm int64
		cold = tp.statements(func() { _, _, _ = resolve(t, tp.b, tp.member, b.ID) })
		warm = tp.statements(func() {
			n, prompt, err := resolve(t, tp.b, tp.member, b.ID)
			if err != nil || n != 1 || prompt != "v1" {
				t.Fatalf("resolved version %d %q (%v); want version 1, v1", n, prompt, err)
			}
		})
		t.Logf("statements resolving a published bot for a chat: cold %d, warm %d", cold, warm)
		if cold < 3 || warm != 0 {
			t.Fatalf("cold %d statements, warm %d; want the bot, membership and version read once, then none", cold, warm)
		}
	})
}

// TestAPublishOnOneProcessIsServedOnTheOther warms the other process,
// then publishes, changes the membership and deletes on one: the other
// answers what the database holds every time.
func TestAPublishOnOneProcessIsServedOnTheOther(t *testing.T) {
	forEachStorage(t, func(t *testing.T, tp *twoProcesses) {
		ctx := context.Background()
		b := tp.create(t, withVariables("Shared"))
		_, _, _, err := tp.b.ResolveForChat(ctx, tp.member, b.ID, false)
		wantField(t, err, "bot_id", "not published") // a failure is not cached
		tp.publish(t, tp.a, b.ID, "v1", botapp.ConnectorAPI, botapp.ConnectorChatSDK)
		if n, prompt, err := resolve(t, tp.b, tp.member, b.ID); err != nil || n != 1 || prompt != "v1" {
			t.Fatalf("after the first publish b resolves %d %q (%v); want version 1", n, prompt, err)
		}
		_, v, err := tp.b.ResolvePublished(ctx, b.ID, botapp.ConnectorChatSDK)
		mustNot(t, err)

		_, err = tp.a.Update(ctx, tp.owner, b.ID, func(c *bot.Config) error { c.Prompt = "v2"; return nil })
		mustNot(t, err)
		if _, v, err = tp.b.ResolvePublished(ctx, b.ID, botapp.ConnectorChatSDK); err != nil || v.Number != 1 {
			t.Fatalf("b serves %+v (%v) after a draft change; want version 1 still", v, err)
		}
		_, err = tp.a.Publish(ctx, tp.owner, b.ID, []string{botapp.ConnectorChatSDK})
		mustNot(t, err)
		if _, v, err = tp.b.ResolvePublished(ctx, b.ID, botapp.ConnectorChatSDK); err != nil || v.Number != 2 || v.Config.Prompt != "v2" {
			t.Fatalf("after publishing version 2 to the Chat SDK on a, b serves %+v (%v)", v, err)
		}
		if n, _, err := resolve(t, tp.b, tp.member, b.ID); err != nil || n != 1 {
			t.Fatalf("the API still serves version %d (%v); want 1: version 2 went to the Chat SDK only", n, err)
		}

		_, _, err = resolve(t, tp.b, tp.stranger, b.ID)
		wantErr(t, err, errs.ErrNotFound, "not found") // the cached bot stays unreachable to a stranger
		mustNot(t, tp.identA.RemoveMember(ctx, tp.owner, tp.ws.ID, tp.member.UserID))
		_, _, err = resolve(t, tp.b, tp.member, b.ID)
		wantErr(t, err, errs.ErrNotFound, "not found") // removed on a: b refuses

		mustNot(t, tp.a.Delete(ctx, tp.owner, b.ID))
		_, _, err = resolve(t, tp.b, tp.owner, b.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		_, _, err = tp.b.ResolvePublished(ctx, b.ID, botapp.ConnectorChatSDK)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})
}
