package identity_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

func days(n int) *int { return &n }

// TestCreateTokenRefuses checks the refused token requests, each naming
// what to fix, and that none of them stores a token.
func TestCreateTokenRefuses(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		who   func(t *testing.T, e *env, tm *team) identity.Principal
		in    func(tm *team) identityapp.CreateTokenInput
		want  error
		field string // for ErrInvalid
	}{
		{
			name: "restricted to a workspace the user does not belong to",
			who:  func(t *testing.T, e *env, tm *team) identity.Principal { return tm.otto.p },
			in: func(tm *team) identityapp.CreateTokenInput {
				return identityapp.CreateTokenInput{Name: "x", WorkspaceIDs: []int64{tm.otto.personal.ID, tm.ws.ID}}
			},
			want: errs.ErrInvalid, field: "workspace_ids",
		},
		{
			name: "restricted to a workspace that does not exist",
			who:  func(t *testing.T, e *env, tm *team) identity.Principal { return tm.otto.p },
			in: func(tm *team) identityapp.CreateTokenInput {
				return identityapp.CreateTokenInput{Name: "x", WorkspaceIDs: []int64{999}}
			},
			want: errs.ErrInvalid, field: "workspace_ids",
		},
		{
			name: "admin scope asked by a non-admin",
			who:  func(t *testing.T, e *env, tm *team) identity.Principal { return tm.otto.p },
			in: func(tm *team) identityapp.CreateTokenInput {
				return identityapp.CreateTokenInput{Name: "x", Scopes: []string{identity.ScopeAdmin}}
			},
			want: errs.ErrInvalid, field: "scopes",
		},
		{
			name: "unknown scope",
			who:  func(t *testing.T, e *env, tm *team) identity.Principal { return tm.otto.p },
			in: func(tm *team) identityapp.CreateTokenInput {
				return identityapp.CreateTokenInput{Name: "x", Scopes: []string{"bots"}}
			},
			want: errs.ErrInvalid, field: "scopes",
		},
		{
			name: "no name",
			who:  func(t *testing.T, e *env, tm *team) identity.Principal { return tm.otto.p },
			in:   func(tm *team) identityapp.CreateTokenInput { return identityapp.CreateTokenInput{Name: "  "} },
			want: errs.ErrInvalid, field: "name",
		},
		{
			name: "a lifetime over 366 days",
			who:  func(t *testing.T, e *env, tm *team) identity.Principal { return tm.otto.p },
			in: func(tm *team) identityapp.CreateTokenInput {
				return identityapp.CreateTokenInput{Name: "x", ExpiresInDays: days(367)}
			},
			want: errs.ErrInvalid, field: "expires_in_days",
		},
		{
			name: "a negative lifetime",
			who:  func(t *testing.T, e *env, tm *team) identity.Principal { return tm.otto.p },
			in: func(tm *team) identityapp.CreateTokenInput {
				return identityapp.CreateTokenInput{Name: "x", ExpiresInDays: days(-1)}
			},
			want: errs.ErrInvalid, field: "expires_in_days",
		},
		{
			name: "asked with a token of limited scopes",
			who: func(t *testing.T, e *env, tm *team) identity.Principal {
				_, p := e.token(t, tm.otto.p, identityapp.CreateTokenInput{Scopes: []string{identity.ScopeBot, identity.ScopeWorkspace}})
				return p
			},
			in:   func(tm *team) identityapp.CreateTokenInput { return identityapp.CreateTokenInput{Name: "x"} },
			want: errs.ErrForbidden,
		},
		{
			name: "restricted beyond the asking token's workspaces",
			who: func(t *testing.T, e *env, tm *team) identity.Principal {
				_, p := e.token(t, tm.mia.p, identityapp.CreateTokenInput{WorkspaceIDs: []int64{tm.ws.ID}})
				return p
			},
			in: func(tm *team) identityapp.CreateTokenInput {
				return identityapp.CreateTokenInput{Name: "x", WorkspaceIDs: []int64{tm.mia.personal.ID}}
			},
			want: errs.ErrInvalid, field: "workspace_ids",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tm := e.team(t)
			p := tc.who(t, e, tm)
			before := e.pats(t, p.UserID)
			got, err := e.svc.CreateToken(ctx, p, tc.in(tm))
			wantKind(t, err, tc.want)
			if tc.field != "" {
				wantField(t, err, tc.field)
			}
			if got != nil {
				t.Fatalf("refused request returned a token")
			}
			if diff := cmp.Diff(before, e.pats(t, p.UserID)); diff != "" {
				t.Fatalf("tokens after a refused request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateTokenExpiry checks the default and the chosen lifetimes.
func TestCreateTokenExpiry(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		days *int
		want time.Duration // 0: never expires
	}{
		{"default is 90 days", nil, 90 * 24 * time.Hour},
		{"0 never expires", days(0), 0},
		{"1 day", days(1), 24 * time.Hour},
		{"at most 366 days", days(366), 366 * 24 * time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			u := e.user(t, "ada", false)
			tok, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{Name: "x", ExpiresInDays: tc.days})
			if err != nil {
				t.Fatal(err)
			}
			stored, err := e.db.Tokens().GetTokenByHash(ctx, identity.HashSecret(tok.Secret))
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []*time.Time{tok.Token.ExpiresAt, stored.ExpiresAt} {
				switch {
				case tc.want == 0 && got != nil:
					t.Fatalf("expires at %v, want never", got)
				case tc.want != 0 && (got == nil || !got.Equal(e.now.Add(tc.want))):
					t.Fatalf("expires at %v, want %v", got, e.now.Add(tc.want))
				}
			}
			if tc.want == 0 {
				e.advance(10 * 366 * 24 * time.Hour)
				e.auth(t, tok.Secret)
			}
		})
	}
}

// TestCreateTokenStoresOnlyTheHash reads the tokens table directly: the
// secret is nowhere in it, its SHA-256 is.
func TestCreateTokenStoresOnlyTheHash(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.user(t, "ada", false)
	tok, err := e.svc.CreateToken(ctx, u.p, identityapp.CreateTokenInput{Name: "ci", Scopes: []string{identity.ScopeChat}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.Secret, "pat_") || len(tok.Secret) < 40 {
		t.Fatalf("secret %q: want pat_ and 256 bits", tok.Secret)
	}
	stored, err := e.db.Tokens().GetTokenByHash(ctx, identity.HashSecret(tok.Secret))
	if err != nil {
		t.Fatalf("token not found by the hash of its secret: %v", err)
	}
	if stored.ID != tok.Token.ID || stored.Hash != identity.HashSecret(tok.Secret) || stored.Hint != tok.Secret[:8]+"…" {
		t.Fatalf("stored token = %+v", stored)
	}

	rows, err := e.db.Gorm().WithContext(ctx).Raw("SELECT * FROM tokens WHERE id = ?", tok.Token.ID).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for rows.Next() {
		found++
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			s := fmt.Sprint(v)
			if b, ok := v.([]byte); ok {
				s = string(b)
			}
			if strings.Contains(s, tok.Secret) || strings.Contains(s, tok.Secret[8:]) {
				t.Fatalf("column %s holds the secret: %q", cols[i], s)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if found != 1 {
		t.Fatalf("%d token rows, want 1", found)
	}
	for _, listed := range e.pats(t, u.ID) {
		if listed.Hash == tok.Secret || strings.Contains(listed.Hint, tok.Secret[8:]) {
			t.Fatalf("listed token shows the secret: %+v", listed)
		}
	}
}

// TestAdminMayCreateAdminTokens is the allowed side of the admin scope rule.
func TestAdminMayCreateAdminTokens(t *testing.T) {
	e := newEnv(t)
	root := e.user(t, "root", true)
	_, p := e.token(t, root.p, identityapp.CreateTokenInput{Scopes: []string{identity.ScopeAdmin}})
	if err := identityapp.RequireAdmin(p); err != nil {
		t.Fatalf("admin-scoped token of an administrator: %v", err)
	}
	_, bot := e.token(t, root.p, identityapp.CreateTokenInput{Scopes: []string{identity.ScopeBot}})
	wantKind(t, identityapp.RequireAdmin(bot), errs.ErrForbidden)
}

// TestRestrictedTokenCannotMintAnUnrestrictedOne shows a workspace
// restriction cannot be shed by minting a new token from the restricted
// one.
func TestRestrictedTokenCannotMintAnUnrestrictedOne(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tm := e.team(t)
	_, onlyTeam := e.token(t, tm.mia.p, identityapp.CreateTokenInput{WorkspaceIDs: []int64{tm.ws.ID}})
	tok, err := e.svc.CreateToken(ctx, onlyTeam, identityapp.CreateTokenInput{Name: "escape"})
	if err == nil {
		p := e.auth(t, tok.Secret)
		if _, err := e.svc.GetWorkspace(ctx, p, tm.mia.personal.ID); err == nil {
			t.Fatalf("a token restricted to workspace %d minted one (workspaces %v) that reads workspace %d",
				tm.ws.ID, tok.Token.WorkspaceIDs, tm.mia.personal.ID)
		}
	}
}

// TestRestrictionNamesEachWorkspaceOnce shows that naming a workspace twice
// in a restriction neither stores it twice nor lists it twice.
func TestRestrictionNamesEachWorkspaceOnce(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.user(t, "ada", false)
	_, p := e.token(t, u.p, identityapp.CreateTokenInput{WorkspaceIDs: []int64{u.personal.ID, u.personal.ID}})
	got, total, err := e.svc.ListWorkspaces(ctx, p, identity.Page{Number: 1, Size: 10})
	if err != nil || total != 1 || len(got) != 1 {
		t.Fatalf("restriction %v lists %d workspaces of %d (%v); want 1 of 1", p.Workspaces, len(got), total, err)
	}
}

// TestListWorkspacesOfARestrictedToken checks that a token restricted to 2
// of the user's 3 workspaces counts 2 and pages them in full pages.
func TestListWorkspacesOfARestrictedToken(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	u := e.user(t, "ada", false)
	var team []int64
	for _, name := range []string{"one", "two"} {
		ws, err := e.svc.CreateWorkspace(ctx, u.p, identityapp.WorkspaceInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		team = append(team, ws.ID)
	}
	_, restricted := e.token(t, u.p, identityapp.CreateTokenInput{WorkspaceIDs: team})

	all, total, err := e.svc.ListWorkspaces(ctx, u.p, identity.Page{Number: 1, Size: 10})
	if err != nil || total != 3 || len(all) != 3 {
		t.Fatalf("unrestricted: %d of %d, %v; want 3 of 3", len(all), total, err)
	}
	var seen []int64
	for page := 1; page <= 3; page++ {
		got, total, err := e.svc.ListWorkspaces(ctx, restricted, identity.Page{Number: page, Size: 1})
		if err != nil {
			t.Fatal(err)
		}
		if total != 2 {
			t.Fatalf("page %d: total %d, want 2", page, total)
		}
		wantLen := 1
		if page == 3 {
			wantLen = 0
		}
		if len(got) != wantLen {
			t.Fatalf("page %d has %d workspaces, want %d", page, len(got), wantLen)
		}
		for _, v := range got {
			if v.Role != identity.RoleOwner {
				t.Fatalf("role in %d = %q", v.Workspace.ID, v.Role)
			}
			seen = append(seen, v.Workspace.ID)
		}
	}
	if diff := cmp.Diff(team, seen); diff != "" {
		t.Fatalf("paged workspaces (-want +got):\n%s", diff)
	}
}

// TestListWorkspacesSkipsOnesTheUserLeft checks that a workspace the user
// left after the token was made neither counts nor leaves a hole.
func TestListWorkspacesSkipsOnesTheUserLeft(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tm := e.team(t)
	name := "second"
	second, err := e.svc.CreateWorkspace(ctx, tm.olga.p, identityapp.WorkspaceInput{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddMember(ctx, tm.olga.p, second.ID, tm.mia.Email, identity.RoleMember); err != nil {
		t.Fatal(err)
	}
	_, restricted := e.token(t, tm.mia.p, identityapp.CreateTokenInput{WorkspaceIDs: []int64{tm.ws.ID, second.ID}})
	if err := e.svc.RemoveMember(ctx, tm.olga.p, tm.ws.ID, tm.mia.ID); err != nil {
		t.Fatal(err)
	}
	got, total, err := e.svc.ListWorkspaces(ctx, restricted, identity.Page{Number: 1, Size: 1})
	if err != nil || total != 1 || len(got) != 1 || got[0].Workspace.ID != second.ID || got[0].Role != identity.RoleMember {
		t.Fatalf("got %+v, total %d, %v; want only workspace %d as member", got, total, err, second.ID)
	}
}
