package identity_test

import (
	"context"
	"slices"
	"testing"
	"time"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// tokenNames returns the names of the tokens p lists.
func tokenNames(t *testing.T, e *env, p identity.Principal) []string {
	t.Helper()
	toks, err := e.svc.ListTokens(context.Background(), p)
	if err != nil {
		t.Fatalf("list tokens: %v", err)
	}
	var names []string
	for _, tok := range toks {
		names = append(names, tok.Name)
	}
	slices.Sort(names)
	return names
}

// TestRestrictedTokenManagesOnlyNarrowerTokens shows a token restricted to
// one workspace sees and revokes only tokens restricted to that workspace:
// its owner's unrestricted token and a token of another workspace stay
// hidden, cannot be revoked, and keep working.
func TestRestrictedTokenManagesOnlyNarrowerTokens(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tm := e.team(t)
	wide, wideP := e.token(t, tm.mia.p, identityapp.CreateTokenInput{Name: "wide"})
	_, teamP := e.token(t, wideP, identityapp.CreateTokenInput{Name: "team", WorkspaceIDs: []int64{tm.ws.ID}})
	_, siblingP := e.token(t, wideP, identityapp.CreateTokenInput{Name: "sibling", WorkspaceIDs: []int64{tm.ws.ID}})
	_, _ = e.token(t, wideP, identityapp.CreateTokenInput{Name: "personal", WorkspaceIDs: []int64{tm.mia.personal.ID}})
	_, _ = e.token(t, wideP, identityapp.CreateTokenInput{Name: "both", WorkspaceIDs: []int64{tm.mia.personal.ID, tm.ws.ID}})

	if got, want := tokenNames(t, e, teamP), []string{"sibling", "team"}; !slices.Equal(got, want) {
		t.Fatalf("restricted token lists %v, want %v", got, want)
	}
	if got := tokenNames(t, e, wideP); len(got) != 5 {
		t.Fatalf("unrestricted token lists %v, want all 5", got)
	}
	err := e.svc.RevokeToken(ctx, teamP, wideP.TokenID)
	wantKind(t, err, errs.ErrForbidden)
	e.auth(t, wide)                                                                // still works
	wantKind(t, e.svc.RevokeToken(ctx, teamP, tm.mia.p.TokenID), errs.ErrNotFound) // the console session
	wantKind(t, e.svc.RevokeToken(ctx, teamP, siblingP.TokenID), nil)
}

// TestLimitedScopeTokenCannotManageTokens shows a token without the all
// scope can neither list, create nor revoke tokens.
func TestLimitedScopeTokenCannotManageTokens(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.user(t, "ada", false)
	_, chatOnly := e.token(t, u.p, identityapp.CreateTokenInput{Scopes: []string{identity.ScopeChat, identity.ScopeBot}})
	_, err := e.svc.ListTokens(ctx, chatOnly)
	wantKind(t, err, errs.ErrForbidden)
	_, err = e.svc.CreateToken(ctx, chatOnly, identityapp.CreateTokenInput{Name: "x", Scopes: []string{identity.ScopeChat}})
	wantKind(t, err, errs.ErrForbidden)
	wantKind(t, e.svc.RevokeToken(ctx, chatOnly, chatOnly.TokenID), errs.ErrForbidden)
	if n := len(e.pats(t, u.ID)); n != 1 {
		t.Fatalf("%d tokens stored, want 1", n)
	}
}

// TestTokenDoesNotOutliveItsMaker shows a token made with a personal access
// token expires no later than it: by default with it, and a later or no
// expiry is refused. A console session is no such cap.
func TestTokenDoesNotOutliveItsMaker(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.user(t, "ada", false)
	_, tenDays := e.token(t, u.p, identityapp.CreateTokenInput{ExpiresInDays: days(10)})
	tok, err := e.svc.CreateToken(ctx, tenDays, identityapp.CreateTokenInput{Name: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Token.ExpiresAt; got == nil || !got.Equal(*tenDays.ExpiresAt) {
		t.Fatalf("default expiry %v, want the maker's %v", got, tenDays.ExpiresAt)
	}
	for _, d := range []int{0, 11, 90} {
		_, err := e.svc.CreateToken(ctx, tenDays, identityapp.CreateTokenInput{Name: "long", ExpiresInDays: days(d)})
		wantField(t, err, "expires_in_days")
	}
	if _, err := e.svc.CreateToken(ctx, tenDays, identityapp.CreateTokenInput{Name: "short", ExpiresInDays: days(3)}); err != nil {
		t.Fatalf("a shorter token: %v", err)
	}
	long, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{Name: "from session", ExpiresInDays: days(300)})
	if err != nil || !long.Token.ExpiresAt.Equal(e.now.Add(300*24*time.Hour)) {
		t.Fatalf("from a console session: %v, %v", long, err)
	}
	if n := len(e.pats(t, u.ID)); n != 4 {
		t.Fatalf("%d tokens stored, want 4 (no refused one)", n)
	}
}
