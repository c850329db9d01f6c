package identity_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// TestBootstrap checks that an empty database gets an administrator with a
// personal workspace and the given token, and that a second run does nothing.
func TestBootstrap(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	in := identityapp.BootstrapInput{Token: "pat_bootstrap_secret_for_tests", Email: "Root@Example.com", Password: password}

	made, err := e.svc.Bootstrap(ctx, in)
	if err != nil || made != identityapp.BootstrapCreated {
		t.Fatalf("first bootstrap = %v, %v; want BootstrapCreated", made, err)
	}
	p, err := e.svc.Authenticate(ctx, in.Token)
	if err != nil {
		t.Fatalf("bootstrap secret does not authenticate: %v", err)
	}
	if !p.IsAdmin || !p.HasScope(identity.ScopeAdmin) || p.TokenKind != identity.TokenPAT || len(p.Workspaces) != 0 {
		t.Fatalf("bootstrap principal = %+v; want an unrestricted admin PAT", p)
	}
	if err := identityapp.RequireAdmin(p); err != nil {
		t.Fatalf("bootstrap token cannot use the admin API: %v", err)
	}
	u, err := e.db.Users().GetUser(ctx, p.UserID)
	if err != nil || u.Email != "root@example.com" || !u.IsAdmin || u.Disabled {
		t.Fatalf("admin = %+v, %v", u, err)
	}
	if _, err := e.svc.Login(ctx, "root@example.com", password); err != nil {
		t.Fatalf("admin cannot sign in with the bootstrap password: %v", err)
	}
	views, total, err := e.db.Workspaces().ListWorkspacesOfUser(ctx, u.ID, identity.Page{Number: 1, Size: 10})
	if err != nil || total != 1 || views[0].Workspace.Kind != identity.WorkspacePersonal || views[0].Role != identity.RoleOwner {
		t.Fatalf("admin's workspaces = %+v (%d), %v; want one personal, owned", views, total, err)
	}
	toks := e.pats(t, u.ID)
	if len(toks) != 1 || toks[0].ExpiresAt != nil || toks[0].Hash != identity.HashSecret(in.Token) {
		t.Fatalf("admin's tokens = %+v; want the bootstrap one, never expiring", toks)
	}

	again := identityapp.BootstrapInput{Token: "pat_another_bootstrap_secret", Email: "other@example.com", Password: password}
	made, err = e.svc.Bootstrap(ctx, again)
	if err != nil || made != identityapp.BootstrapTokenIgnored {
		t.Fatalf("second bootstrap = %v, %v; want BootstrapTokenIgnored", made, err)
	}
	if n, err := e.db.Users().CountUsers(ctx); err != nil || n != 1 {
		t.Fatalf("%d users after the second bootstrap (%v), want 1", n, err)
	}
	if _, err := e.svc.Authenticate(ctx, again.Token); !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("second bootstrap's token authenticates: %v", err)
	}
	if n := len(e.pats(t, u.ID)); n != 1 {
		t.Fatalf("admin has %d tokens after the second bootstrap, want 1", n)
	}
}

// TestBootstrapWithoutTokenDoesNothing: no PERGOLA_BOOTSTRAP_TOKEN, no admin.
func TestBootstrapWithoutTokenDoesNothing(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	made, err := e.svc.Bootstrap(ctx, identityapp.BootstrapInput{Email: "root@example.com", Password: password})
	if err != nil || made != identityapp.BootstrapNotRequested {
		t.Fatalf("bootstrap without a token = %v, %v; want BootstrapNotRequested", made, err)
	}
	if n, err := e.db.Users().CountUsers(ctx); err != nil || n != 0 {
		t.Fatalf("%d users (%v), want 0", n, err)
	}
}

// TestBootstrapOnRestart checks what a restart on a database with users
// reports for each token, and that it never adds or revives one: a revoked
// bootstrap token stays revoked.
func TestBootstrapOnRestart(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	first := identityapp.BootstrapInput{Token: "pat_first_bootstrap_secret", Email: "root@example.com", Password: password}
	if made, err := e.svc.Bootstrap(ctx, first); err != nil || made != identityapp.BootstrapCreated {
		t.Fatalf("bootstrap = %v, %v", made, err)
	}
	check := func(token string, want identityapp.BootstrapOutcome) {
		t.Helper()
		got, err := e.svc.Bootstrap(ctx, identityapp.BootstrapInput{Token: token, Email: first.Email, Password: password})
		if err != nil || got != want {
			t.Fatalf("restart with token %q = %v, %v; want %v", token, got, err, want)
		}
	}
	check(first.Token, identityapp.BootstrapTokenKnown)
	check("", identityapp.BootstrapNotNeeded)
	check("pat_some_other_secret", identityapp.BootstrapTokenIgnored)

	p := e.auth(t, first.Token)
	if err := e.svc.RevokeToken(ctx, p, p.TokenID); err != nil {
		t.Fatal(err)
	}
	check(first.Token, identityapp.BootstrapTokenIgnored)
	if _, err := e.svc.Authenticate(ctx, first.Token); !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("the revoked bootstrap token authenticates after a restart: %v", err)
	}
	if n := len(e.pats(t, p.UserID)); n != 1 {
		t.Fatalf("admin has %d tokens after the restarts, want the one revoked", n)
	}
}

// TestIssueToken checks the operator's `pergola token`: an administrator
// gets an admin token that works, other users a plain one, and unknown or
// disabled users get an error saying so.
func TestIssueToken(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	admin := e.user(t, "root", true)
	plain := e.user(t, "ann", false)

	tok, err := e.svc.IssueToken(ctx, " ROOT@example.com ", "recovery", 0)
	if err != nil {
		t.Fatalf("issue for the admin: %v", err)
	}
	p := e.auth(t, tok.Secret)
	if p.UserID != admin.ID || !p.HasScope(identity.ScopeAdmin) || tok.Token.ExpiresAt != nil {
		t.Fatalf("admin's new token = %+v (%+v); want a never-expiring admin token of user %d", p, tok.Token, admin.ID)
	}
	if err := identityapp.RequireAdmin(p); err != nil {
		t.Fatalf("the new token cannot use the admin API: %v", err)
	}

	tok, err = e.svc.IssueToken(ctx, "ann@example.com", "cli", 30)
	if err != nil {
		t.Fatal(err)
	}
	p = e.auth(t, tok.Secret)
	if p.UserID != plain.ID || identityapp.RequireAdmin(p) == nil || tok.Token.ExpiresAt == nil {
		t.Fatalf("ann's token = %+v (%+v); want a 30-day token that cannot use the admin API", p, tok.Token)
	}

	if _, err := e.svc.IssueToken(ctx, "nobody@example.com", "cli", 0); !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), "nobody@example.com") {
		t.Fatalf("unknown e-mail: %v; want ErrNotFound naming it", err)
	}
	disabled := true
	if _, err := e.svc.UpdateUser(ctx, plain.ID, identityapp.UserPatch{Disabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.IssueToken(ctx, "ann@example.com", "cli", 0); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("disabled user: %v; want ErrInvalid", err)
	}
}

// staleCount is a user store that counted before another process
// bootstrapped: it still sees an empty database.
type staleCount struct{ identity.UserStore }

func (staleCount) CountUsers(context.Context) (int64, error) { return 0, nil }

// TestBootstrapRacingAnotherProcess checks that a process that started
// together with another one on an empty database, and lost the race to
// create the administrator, starts too, with the winner's token usable.
func TestBootstrapRacingAnotherProcess(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	in := identityapp.BootstrapInput{Token: "pat_bootstrap_secret_for_tests", Email: "root@example.com", Password: password}
	if made, err := e.svc.Bootstrap(ctx, in); err != nil || made != identityapp.BootstrapCreated {
		t.Fatalf("winner's bootstrap = %v, %v; want BootstrapCreated", made, err)
	}
	loser := identityapp.New(staleCount{e.db.Users()}, e.db.Workspaces(), e.db.Tokens(), identityapp.WithPasswordCost(bcrypt.MinCost))
	made, err := loser.Bootstrap(ctx, in)
	if err != nil || made != identityapp.BootstrapTokenKnown {
		t.Fatalf("the loser's bootstrap = %v, %v; want BootstrapTokenKnown", made, err)
	}
	if toks := e.pats(t, e.auth(t, in.Token).UserID); len(toks) != 1 {
		t.Fatalf("tokens after two bootstraps = %d; want the one", len(toks))
	}
}
