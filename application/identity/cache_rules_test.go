package identity_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/memory"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// cluster is two processes' identity services over one database, each
// with its own caches, kept fresh through one in-process bus, plus a
// counter of the statements the database runs.
type cluster struct {
	db    *sqlstore.DB
	a, b  *identityapp.Service
	now   time.Time
	stmts *sqlstore.StatementCounter
}

// storages are the databases the cache is tested on.
func storages() map[string]func(t testing.TB) sqlstore.Config {
	return map[string]func(t testing.TB) sqlstore.Config{
		"sqlite": func(t testing.TB) sqlstore.Config {
			return sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")}
		},
		"mariadb": func(t testing.TB) sqlstore.Config { return sqlstore.Config{DSN: testenv.MySQL(t)} },
	}
}

func newCluster(t testing.TB, cfg sqlstore.Config) *cluster {
	t.Helper()
	ctx := context.Background()
	box, err := secret.NewBox(bytes.Repeat([]byte{9}, secret.KeySize))
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
	stmts, err := db.CountStatements()
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{db: db, now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), stmts: stmts}
	bus := memory.NewInvalidationBus()
	c.a, c.b = c.process(t, bus), c.process(t, bus)
	for bus.Listeners() < 2 {
		time.Sleep(time.Millisecond)
	}
	return c
}

// process is one process's identity service with its own caches.
func (c *cluster) process(t testing.TB, bus *memory.InvalidationBus) *identityapp.Service {
	hub := invalidation.NewHub(bus, invalidation.Options{TTL: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	s := identityapp.NewCachedStores(hub, 100, c.db.Users(), c.db.Workspaces(), c.db.Tokens())
	return identityapp.New(s.Users, s.Workspaces, s.Tokens, identityapp.WithPasswordCost(bcrypt.MinCost),
		identityapp.WithClock(func() time.Time { return c.now }))
}

// statements returns how many statements fn ran.
func (c *cluster) statements(fn func()) int64 {
	before := len(c.stmts.Statements())
	fn()
	return int64(len(c.stmts.Statements()) - before)
}

// signUp creates a user with a personal access token and returns the
// user, the token's secret and its principal on process a.
func (c *cluster) signUp(t testing.TB, name string) (*identity.User, *identity.Workspace, string, identity.Principal) {
	t.Helper()
	ctx := context.Background()
	u, ws, err := c.a.CreateUser(ctx, identityapp.UserInput{Email: name + "@example.com", Name: name, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.a.Login(ctx, u.Email, password)
	if err != nil {
		t.Fatal(err)
	}
	session := authOn(t, c.a, s.Secret)
	tok, err := c.a.CreateToken(ctx, session, identityapp.CreateTokenInput{Name: "api"})
	if err != nil {
		t.Fatal(err)
	}
	return u, ws, tok.Secret, authOn(t, c.a, tok.Secret)
}

func authOn(t testing.TB, s *identityapp.Service, secret string) identity.Principal {
	t.Helper()
	p, err := s.Authenticate(context.Background(), secret)
	if err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	return p
}

func forEachStorage(t *testing.T, test func(t *testing.T, c *cluster)) {
	for name, cfg := range storages() {
		t.Run(name, func(t *testing.T) { test(t, newCluster(t, cfg(t))) })
	}
}

// TestAWarmRequestReadsNoIdentity counts the statements of what every
// request does (authenticate, read the caller, check a membership): the
// first time they read the token, the user and the membership; after that
// nothing.
func TestAWarmRequestReadsNoIdentity(t *testing.T) {
	forEachStorage(t, func(t *testing.T, c *cluster) {
		_, ws, secret, _ := c.signUp(t, "ada")
		request := func(s *identityapp.Service) {
			p := authOn(t, s, secret)
			if _, err := s.Me(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Authorize(context.Background(), p, ws.ID, identity.RoleMember); err != nil {
				t.Fatal(err)
			}
		}
		cold := c.statements(func() { request(c.b) })
		warm := c.statements(func() { request(c.b) })
		t.Logf("statements of authenticate + me + authorize: cold %d, warm %d", cold, warm)
		if cold < 3 || warm != 0 {
			t.Fatalf("cold %d statements, warm %d; want the token, user and membership read once (at least 3), then none", cold, warm)
		}
	})
}

// TestChangesOnOneProcessAreSeenOnTheOther warms both processes' caches,
// changes something on a, and checks b answers as the database does.
func TestChangesOnOneProcessAreSeenOnTheOther(t *testing.T) {
	forEachStorage(t, func(t *testing.T, c *cluster) {
		ctx := context.Background()
		_, _, _, op := c.signUp(t, "olga")
		_, _, mSecret, mp := c.signUp(t, "mia")
		name := "team"
		ws, err := c.a.CreateWorkspace(ctx, op, identityapp.WorkspaceInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.a.AddMember(ctx, op, ws.ID, "mia@example.com", identity.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		warm := func() {
			for _, s := range []*identityapp.Service{c.a, c.b} {
				authOn(t, s, mSecret)
				if _, err := s.Authorize(ctx, mp, ws.ID, identity.RoleAdmin); err != nil {
					t.Fatalf("authorize mia before the change: %v", err)
				}
			}
		}
		warm()
		if err := c.a.SetMemberRole(ctx, op, ws.ID, mp.UserID, identity.RoleMember); err != nil {
			t.Fatal(err)
		}
		_, err = c.b.Authorize(ctx, mp, ws.ID, identity.RoleAdmin)
		wantKind(t, err, errs.ErrForbidden) // demoted on a: b knows

		if err := c.a.RemoveMember(ctx, op, ws.ID, mp.UserID); err != nil {
			t.Fatal(err)
		}
		_, err = c.b.Authorize(ctx, mp, ws.ID, identity.RoleMember)
		wantKind(t, err, errs.ErrForbidden) // removed on a: b refuses

		_, err = c.b.Authorize(ctx, op, ws.ID, identity.RoleOwner)
		wantKind(t, err, nil)
		if err := c.a.DeleteWorkspace(ctx, op, ws.ID); err != nil {
			t.Fatal(err)
		}
		_, err = c.b.Authorize(ctx, op, ws.ID, identity.RoleOwner)
		wantKind(t, err, errs.ErrForbidden) // deleted on a: b refuses its owner

		if err := c.a.RevokeToken(ctx, mp, mp.TokenID); err != nil {
			t.Fatal(err)
		}
		_, err = c.b.Authenticate(ctx, mSecret)
		wantKind(t, err, errs.ErrUnauthenticated) // revoked on a: refused on b

		otto, _, oSecret, _ := c.signUp(t, "otto")
		authOn(t, c.b, oSecret)
		disabled := true
		if _, err := c.a.UpdateUser(ctx, otto.ID, identityapp.UserPatch{Disabled: &disabled}); err != nil {
			t.Fatal(err)
		}
		_, err = c.b.Authenticate(ctx, oSecret)
		wantKind(t, err, errs.ErrUnauthenticated) // disabled on a: refused on b
	})
}

// TestUnknownTokensAreNotCached checks that a miss is never kept: it
// costs a lookup every time, and a token stored right after a failed
// lookup of its secret works at once on every process.
func TestUnknownTokensAreNotCached(t *testing.T) {
	forEachStorage(t, func(t *testing.T, c *cluster) {
		ctx := context.Background()
		u, _, _, _ := c.signUp(t, "ada")
		secret := "pat_not_stored_yet"
		for i := range 3 {
			n := c.statements(func() {
				_, err := c.b.Authenticate(ctx, secret)
				wantKind(t, err, errs.ErrUnauthenticated)
			})
			if n != 1 {
				t.Fatalf("failed lookup %d ran %d statements, want 1: misses are not cached", i+1, n)
			}
		}
		tok := &identity.Token{UserID: u.ID, Kind: identity.TokenPAT, Name: "late", Hash: identity.HashSecret(secret),
			Hint: identity.SecretHint(secret), Scopes: []string{identity.ScopeAll}}
		if err := c.db.Tokens().CreateToken(ctx, tok); err != nil { // made by a process without caches
			t.Fatal(err)
		}
		for _, s := range []*identityapp.Service{c.a, c.b} {
			if p := authOn(t, s, secret); p.TokenID != tok.ID {
				t.Fatalf("authenticated as token %d, want %d", p.TokenID, tok.ID)
			}
		}
	})
}

// TestATokenIsTouchedOncePerInterval checks the last-used time still
// advances with a cached token, without a write on every request.
func TestATokenIsTouchedOncePerInterval(t *testing.T) {
	forEachStorage(t, func(t *testing.T, c *cluster) {
		u, _, secret, _ := c.signUp(t, "ada")
		authOn(t, c.b, secret)
		c.now = c.now.Add(2 * time.Minute)
		touched := c.statements(func() { authOn(t, c.b, secret) })
		again := c.statements(func() { authOn(t, c.b, secret) })
		reread := c.statements(func() { authOn(t, c.b, secret) })
		if touched != 1 || again != 1 || reread != 0 {
			t.Fatalf("statements: %d touching, %d after, %d then; want the touch, one read of the touched token, then none",
				touched, again, reread)
		}
		toks, err := c.db.Tokens().ListTokensOfUser(context.Background(), u.ID, identity.TokenPAT)
		if err != nil || len(toks) != 1 || toks[0].LastUsedAt == nil || !toks[0].LastUsedAt.Equal(c.now) {
			t.Fatalf("stored token %+v (%v); want last used at %v", toks, err, c.now)
		}
	})
}
