package identity_test

import (
	"context"
	"errors"
	"testing"

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
	if err != nil || !made {
		t.Fatalf("first bootstrap = %v, %v; want true", made, err)
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
	if err != nil || made {
		t.Fatalf("second bootstrap = %v, %v; want false", made, err)
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
	if err != nil || made {
		t.Fatalf("bootstrap without a token = %v, %v; want false", made, err)
	}
	if n, err := e.db.Users().CountUsers(ctx); err != nil || n != 0 {
		t.Fatalf("%d users (%v), want 0", n, err)
	}
}
