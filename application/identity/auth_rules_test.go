package identity_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// TestAuthenticateRefuses checks every way a secret fails to authenticate,
// and that a refused secret does not count as a use of its token.
func TestAuthenticateRefuses(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// prepare returns the secret to try.
		prepare func(t *testing.T, e *env, u person) string
	}{
		{"no secret", func(t *testing.T, e *env, u person) string { return "" }},
		{"unknown secret", func(t *testing.T, e *env, u person) string { return identity.NewSecret(identity.TokenPAT) }},
		{"revoked", func(t *testing.T, e *env, u person) string {
			tok, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{Name: "r"})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.svc.RevokeToken(ctx, u.p, tok.Token.ID); err != nil {
				t.Fatal(err)
			}
			return tok.Secret
		}},
		{"expired", func(t *testing.T, e *env, u person) string {
			tok, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{Name: "e", ExpiresInDays: days(1)})
			if err != nil {
				t.Fatal(err)
			}
			e.advance(24 * time.Hour) // exactly ExpiresAt: no longer valid
			return tok.Secret
		}},
		{"user disabled", func(t *testing.T, e *env, u person) string {
			tok, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{Name: "d"})
			if err != nil {
				t.Fatal(err)
			}
			disabled := true
			if _, err := e.svc.UpdateUser(ctx, u.ID, identityapp.UserPatch{Disabled: &disabled}); err != nil {
				t.Fatal(err)
			}
			return tok.Secret
		}},
		{"session after logout", func(t *testing.T, e *env, u person) string {
			s, err := e.svc.Login(ctx, u.Email, password)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.svc.Logout(ctx, e.auth(t, s.Secret)); err != nil {
				t.Fatal(err)
			}
			return s.Secret
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			u := e.user(t, "ada", false)
			secret := tc.prepare(t, e, u)
			p, err := e.svc.Authenticate(ctx, secret)
			wantKind(t, err, errs.ErrUnauthenticated)
			if p.UserID != 0 {
				t.Fatalf("refused secret still gave a principal: %+v", p)
			}
			for _, tok := range e.pats(t, u.ID) {
				if tok.LastUsedAt != nil {
					t.Fatalf("token %q marked used by a refused secret", tok.Name)
				}
			}
		})
	}
}

// TestAuthenticateGivesThePrincipal checks what a valid PAT turns into,
// including just before its expiry.
func TestAuthenticateGivesThePrincipal(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.user(t, "ada", true)
	tok, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{
		Name: "ci", Scopes: []string{identity.ScopeWorkflow, identity.ScopeBot, identity.ScopeBot},
		WorkspaceIDs: []int64{u.personal.ID}, ExpiresInDays: days(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.advance(24*time.Hour - time.Second)
	p, err := e.svc.Authenticate(ctx, tok.Secret)
	if err != nil {
		t.Fatalf("one second before expiry: %v", err)
	}
	// An administrator's token restricted to a workspace is not platform-wide.
	want := identity.Principal{
		UserID: u.ID, IsAdmin: false, TokenID: tok.Token.ID, TokenKind: identity.TokenPAT,
		Scopes: []string{identity.ScopeBot, identity.ScopeWorkflow}, Workspaces: []int64{u.personal.ID},
		ExpiresAt: tok.Token.ExpiresAt,
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Fatalf("principal (-want +got):\n%s", diff)
	}
	if !p.HasScope(identity.ScopeBot) || p.HasScope(identity.ScopeWorkspace) {
		t.Fatalf("scopes %v: want bot and workflow only", p.Scopes)
	}
}

// TestAuthenticateRecordsLastUse checks that the first use is written and
// that uses within a minute do not rewrite it.
func TestAuthenticateRecordsLastUse(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.user(t, "ada", false)
	tok, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{Name: "ci"})
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() *time.Time {
		t.Helper()
		stored, err := e.db.Tokens().GetTokenByHash(ctx, identity.HashSecret(tok.Secret))
		if err != nil {
			t.Fatal(err)
		}
		return stored.LastUsedAt
	}
	if got := lastUsed(); got != nil {
		t.Fatalf("new token already used at %v", got)
	}
	first := e.now
	steps := []struct {
		name    string
		advance time.Duration
		want    time.Time
	}{
		{"first use is written", 0, first},
		{"a use 30s later is not", 30 * time.Second, first},
		{"nor one exactly a minute after the first", 30 * time.Second, first},
		{"a use past the minute is", time.Second, first.Add(61 * time.Second)},
		{"and the minute restarts from it", 59 * time.Second, first.Add(61 * time.Second)},
	}
	for _, s := range steps {
		e.advance(s.advance)
		e.auth(t, tok.Secret)
		got := lastUsed()
		if got == nil || !got.Equal(s.want) {
			t.Fatalf("%s: last used %v, want %v", s.name, got, s.want)
		}
	}
}

// TestLoginRules checks that a failed sign-in does not say which part was
// wrong, that e-mails match in any case, and that failures open no session.
func TestLoginRules(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u, _, err := e.svc.CreateUser(ctx, identityapp.UserInput{Email: " Ada@Example.COM ", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != "ada@example.com" || u.Name != "ada" {
		t.Fatalf("stored e-mail %q, name %q; want them lower-cased and derived", u.Email, u.Name)
	}
	sessions := func() int {
		t.Helper()
		toks, err := e.db.Tokens().ListTokensOfUser(ctx, u.ID, identity.TokenSession)
		if err != nil {
			t.Fatal(err)
		}
		return len(toks)
	}

	refused := []struct {
		name, email, password string
		want                  error
	}{
		{"wrong password", "ada@example.com", "wrong-password", errs.ErrUnauthenticated},
		{"unknown e-mail", "bob@example.com", password, errs.ErrUnauthenticated},
		{"empty password", "ada@example.com", "", errs.ErrInvalid},
		{"empty e-mail", "  ", password, errs.ErrInvalid},
	}
	var messages []string
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			s, err := e.svc.Login(ctx, tc.email, tc.password)
			wantKind(t, err, tc.want)
			if s != nil {
				t.Fatalf("refused sign-in gave a session")
			}
			if tc.want == errs.ErrUnauthenticated {
				messages = append(messages, err.Error())
			}
		})
	}
	if len(messages) != 2 || messages[0] != messages[1] {
		t.Fatalf("wrong password and unknown e-mail answer %q; want the same message", messages)
	}
	if n := sessions(); n != 0 {
		t.Fatalf("refused sign-ins opened %d sessions", n)
	}

	for _, email := range []string{"ADA@EXAMPLE.COM", " ada@Example.com "} {
		s, err := e.svc.Login(ctx, email, password)
		if err != nil {
			t.Fatalf("login as %q: %v", email, err)
		}
		p := e.auth(t, s.Secret)
		if p.UserID != u.ID || p.TokenKind != identity.TokenSession || !p.HasScope(identity.ScopeAll) {
			t.Fatalf("session principal = %+v", p)
		}
		if !s.ExpiresAt.Equal(e.now.Add(7 * 24 * time.Hour)) {
			t.Fatalf("session expires at %v, want in 7 days", s.ExpiresAt)
		}
	}
	if n := sessions(); n != 2 {
		t.Fatalf("%d sessions stored, want 2", n)
	}

	disabled := true
	if _, err := e.svc.UpdateUser(ctx, u.ID, identityapp.UserPatch{Disabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Login(ctx, "ada@example.com", password)
	wantKind(t, err, errs.ErrUnauthenticated)
	if n := sessions(); n != 2 {
		t.Fatalf("a disabled user opened a session")
	}
}
