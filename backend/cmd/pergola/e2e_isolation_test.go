package main

import (
	"fmt"
	"testing"
)

// TestWorkspaceIsolation shows that a token of workspace A can neither read
// nor change anything of workspace B, on every back end.
func TestWorkspaceIsolation(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			admin := bootstrapToken

			// Alice (the admin) has a team workspace; Bob is another user.
			teamA := s.call(t, "POST", "/api/workspaces", admin, map[string]any{"name": "Alice's team"}).must(t, 201)
			wsA := str(teamA.data, "id")
			s.call(t, "POST", "/api/admin/users", admin, map[string]any{
				"email": "bob@example.com", "name": "Bob", "password": "bob-password-1",
			}).must(t, 201)
			login := s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "bob@example.com", "password": "bob-password-1"}).must(t, 200)
			bobSession := str(login.data, "token")
			pat := s.call(t, "POST", "/api/tokens", bobSession, map[string]any{"name": "ci"}).must(t, 201)
			bob := str(pat.data, "token")
			if len(bob) < 40 || str(pat.data, "hint") == "" {
				t.Fatalf("PAT answer = %v", pat.data)
			}

			// Bob sees only his own workspace.
			mine := s.call(t, "GET", "/v1/workspaces", bob, nil).must(t, 200)
			if list := items(t, mine.data, "workspaces"); len(list) != 1 || str(list[0], "id") == wsA {
				t.Fatalf("Bob lists %v", list)
			}
			// Nothing of Alice's workspace can be read or changed with Bob's token.
			refused := []struct {
				method, path string
				body         any
			}{
				{"GET", "/api/workspaces/" + wsA, nil},
				{"PATCH", "/api/workspaces/" + wsA, map[string]any{"name": "mine now"}},
				{"DELETE", "/api/workspaces/" + wsA, nil},
				{"GET", "/api/workspaces/" + wsA + "/members", nil},
				{"POST", "/api/workspaces/" + wsA + "/members", map[string]any{"email": "bob@example.com", "role": "owner"}},
			}
			for _, r := range refused {
				s.call(t, r.method, r.path, bob, r.body).fails(t, 403, 4101, "not a member")
			}
			// Bob cannot use the admin API, nor revoke Alice's tokens.
			s.call(t, "GET", "/api/admin/users", bob, nil).fails(t, 403, 4101, "administrator")
			aliceTokens := s.call(t, "GET", "/api/tokens", admin, nil).must(t, 200)
			aliceTokenID := str(items(t, aliceTokens.data, "items")[0], "id")
			s.call(t, "DELETE", "/api/tokens/"+aliceTokenID, bob, nil).fails(t, 404, 4200, "not found")
			s.call(t, "GET", "/api/me", admin, nil).must(t, 200)

			// Alice's workspace is unchanged.
			got := s.call(t, "GET", "/api/workspaces/"+wsA, admin, nil).must(t, 200)
			if str(got.data, "name") != "Alice's team" {
				t.Fatalf("workspace A changed: %v", got.data)
			}
			members := s.call(t, "GET", "/api/workspaces/"+wsA+"/members", admin, nil).must(t, 200)
			if n := len(items(t, members.data, "items")); n != 1 {
				t.Fatalf("workspace A has %d members, want 1", n)
			}

			// A token restricted to workspace A cannot reach Alice's personal workspace.
			scoped := s.call(t, "POST", "/api/tokens", admin, map[string]any{"name": "only A", "workspace_ids": []string{wsA}}).must(t, 201)
			onlyA := str(scoped.data, "token")
			all := s.call(t, "GET", "/api/workspaces", admin, nil).must(t, 200)
			for _, w := range items(t, all.data, "items") {
				if id := str(w, "id"); id != wsA {
					s.call(t, "GET", "/api/workspaces/"+id, onlyA, nil).fails(t, 403, 4101, "not valid for workspace "+id)
				}
			}
			s.call(t, "GET", "/api/workspaces/"+wsA, onlyA, nil).must(t, 200)
			if list := items(t, s.call(t, "GET", "/v1/workspaces", onlyA, nil).must(t, 200).data, "workspaces"); len(list) != 1 {
				t.Fatalf("restricted token lists %d workspaces", len(list))
			}

			// Bob, added as a member, can read but not administer.
			s.call(t, "POST", "/api/workspaces/"+wsA+"/members", admin, map[string]any{"email": "bob@example.com"}).must(t, 201)
			s.call(t, "GET", "/api/workspaces/"+wsA, bob, nil).must(t, 200)
			s.call(t, "PATCH", "/api/workspaces/"+wsA, bob, map[string]any{"name": "x"}).fails(t, 403, 4101, "admin role")
		})
	}
}

// TestTokensLifecycle covers scopes, expiry validation, revocation and bad
// input, each answered with a message naming the field.
func TestTokensLifecycle(t *testing.T) {
	s := startServer(t, nil)
	admin := bootstrapToken
	s.call(t, "POST", "/api/tokens", admin, map[string]any{"name": "x", "scopes": []string{"nope"}}).fails(t, 400, 4000, "scopes")
	s.call(t, "POST", "/api/tokens", admin, map[string]any{"name": ""}).fails(t, 400, 4000, "name")
	s.call(t, "POST", "/api/tokens", admin, map[string]any{"name": "x", "expires_in_days": 400}).fails(t, 400, 4000, "expires_in_days")
	s.call(t, "POST", "/api/tokens", admin, map[string]any{"name": "x", "workspace_ids": []string{"999"}}).fails(t, 400, 4000, "workspace_ids")
	s.call(t, "POST", "/api/tokens", admin, `{"name": 5}`).fails(t, 400, 4000, "name")
	s.call(t, "POST", "/api/tokens", admin, `{"name":`).fails(t, 400, 4000, "JSON")
	s.call(t, "DELETE", "/api/tokens/abc", admin, nil).fails(t, 400, 4000, "id")

	created := s.call(t, "POST", "/api/tokens", admin, map[string]any{"name": "bots only", "scopes": []string{"bot"}, "expires_in_days": 1}).must(t, 201)
	limited, id := str(created.data, "token"), str(created.data, "id")
	if created.data["expires_at"] == float64(0) {
		t.Fatal("token has no expiry")
	}
	// A limited token cannot create workspaces or mint tokens.
	s.call(t, "POST", "/api/workspaces", limited, map[string]any{"name": "w"}).fails(t, 403, 4101, "workspace")
	s.call(t, "POST", "/api/tokens", limited, map[string]any{"name": "y"}).fails(t, 403, 4101, "needs: one of all")
	s.call(t, "GET", "/v1/users/me", limited, nil).must(t, 200)

	list := s.call(t, "GET", "/api/tokens", admin, nil).must(t, 200)
	for _, tok := range items(t, list.data, "items") {
		if tok["token"] != nil {
			t.Fatalf("token list shows a secret: %v", tok)
		}
	}
	s.call(t, "DELETE", "/api/tokens/"+id, admin, nil).must(t, 200)
	s.call(t, "GET", "/v1/users/me", limited, nil).fails(t, 401, 4100, "token was revoked; get a new personal access token")
	s.call(t, "DELETE", fmt.Sprintf("/api/tokens/%d", 12345), admin, nil).fails(t, 404, 4200, "not found")

	// Wrong passwords do not say which part was wrong.
	s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "admin@pergola.local", "password": "wrong-password"}).fails(t, 401, 4100, "email or password is wrong")
	s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "nobody@pergola.local", "password": "wrong-password"}).fails(t, 401, 4100, "email or password is wrong")
	session := str(s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "admin@pergola.local", "password": "admin-password"}).must(t, 200).data, "token")
	s.call(t, "POST", "/api/auth/logout", session, nil).must(t, 200)
	s.call(t, "GET", "/api/me", session, nil).fails(t, 401, 4100, "revoked")
}
