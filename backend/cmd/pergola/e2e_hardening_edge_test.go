package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestCSRFCookieWrites shows that a write signed in with the session cookie
// is carried out only from an allowed origin (a listed one or the server's
// own host) and with a JSON body, while bearer-token calls are unaffected.
func TestCSRFCookieWrites(t *testing.T) {
	s := startServer(t, map[string]string{"PERGOLA_CORS_ORIGINS": "https://console.example"})
	cookie := s.sessionCookie(t)
	self := s.base // the server's own origin: http://127.0.0.1:port
	write := func(method, path, origin, referer, ctype, body string) reply {
		h := map[string]string{"Cookie": cookie}
		for k, v := range map[string]string{"Origin": origin, "Referer": referer, "Content-Type": ctype} {
			if v != "" {
				h[k] = v
			}
		}
		return s.send(t, rawRequest{method: method, path: path, header: h, body: strings.NewReader(body)})
	}
	refused := []struct {
		name, origin, referer, ctype, body, want string
	}{
		{"evil origin, text/plain", "http://evil.example", "", "text/plain", `{"name":"csrf-1"}`, "http://evil.example is not an allowed origin"},
		{"evil origin, form", "http://evil.example", "", "application/x-www-form-urlencoded", "name=csrf-2", "not an allowed origin"},
		{"evil referer, no origin", "", "http://evil.example/page", "application/json", `{"name":"csrf-3"}`, "Referer http://evil.example"},
		{"opaque origin", "null", "", "application/json", `{"name":"csrf-4"}`, "Origin null"},
		{"allowed origin, form", "https://console.example", "", "application/x-www-form-urlencoded", "name=csrf-5", "Content-Type: application/json"},
		{"same origin, text/plain", self, "", "text/plain", `{"name":"csrf-6"}`, "Content-Type: application/json"},
		{"no origin, multipart", "", "", "multipart/form-data; boundary=x", "--x--", "Content-Type: application/json"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			write("POST", "/api/workspaces", tc.origin, tc.referer, tc.ctype, tc.body).fails(t, 403, 4101, tc.want)
		})
	}
	if names := s.workspaceNames(t, bootstrapToken); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "csrf-") }) {
		t.Fatalf("a refused write was carried out: workspaces %v", names)
	}

	listed := write("POST", "/api/workspaces", "https://console.example", "", "application/json", `{"name":"from console"}`).must(t, 201)
	write("POST", "/api/workspaces", self, "", "application/json; charset=utf-8", `{"name":"same origin"}`).must(t, 201)
	write("POST", "/api/workspaces", "", "", "application/json", `{"name":"curl with cookie"}`).must(t, 201)
	id := str(listed.data, "id")
	write("DELETE", "/api/workspaces/"+id, "http://evil.example", "", "", "").fails(t, 403, 4101, "not an allowed origin")
	s.call(t, "GET", "/api/workspaces/"+id, bootstrapToken, nil).must(t, 200)
	write("DELETE", "/api/workspaces/"+id, "https://console.example", "", "", "").must(t, 200)

	// A bearer token is never sent by a browser on its own: any origin, any type.
	pat := s.send(t, rawRequest{method: "POST", path: "/api/workspaces", body: strings.NewReader(`{"name":"by pat"}`),
		header: map[string]string{"Authorization": "Bearer " + bootstrapToken, "Origin": "http://evil.example", "Content-Type": "text/plain"}})
	pat.must(t, 201)
}

// TestTokenScopeEndToEnd shows a workspace-restricted token lists only
// tokens no broader than itself, cannot revoke its owner's unrestricted
// token (which keeps working) and cannot mint a broader one; a token
// without the all scope cannot manage tokens at all.
func TestTokenScopeEndToEnd(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			ws := str(s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Scoped"}).must(t, 201).data, "id")
			wide := s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "wide"}).must(t, 201).data
			narrow := s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "narrow", "workspace_ids": []string{ws}}).must(t, 201).data
			nt := str(narrow, "token")
			s.call(t, "POST", "/api/tokens", nt, map[string]any{"name": "narrower"}).must(t, 201)

			var listed []string
			for _, it := range items(t, s.call(t, "GET", "/api/tokens", nt, nil).must(t, 200).data, "items") {
				listed = append(listed, str(it, "name"))
			}
			slices.Sort(listed)
			if !slices.Equal(listed, []string{"narrow", "narrower"}) {
				t.Fatalf("the restricted token lists %v, want only narrow and narrower", listed)
			}
			s.call(t, "DELETE", "/api/tokens/"+str(wide, "id"), nt, nil).fails(t, 403, 4101, "reaches more workspaces than the token making this call")
			s.call(t, "GET", "/api/me", str(wide, "token"), nil).must(t, 200)

			personal := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
			if personal == ws {
				personal = str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).data, "workspaces")[1], "id")
			}
			s.call(t, "POST", "/api/tokens", nt, map[string]any{"name": "escape", "workspace_ids": []string{personal}}).fails(t, 400, 4000, "workspace_ids")

			chat := str(s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "chat", "scopes": []string{"chat"}}).must(t, 201).data, "token")
			s.call(t, "GET", "/api/tokens", chat, nil).fails(t, 403, 4101, "needs: one of all")
			s.call(t, "DELETE", "/api/tokens/"+str(wide, "id"), chat, nil).fails(t, 403, 4101, "needs: one of all")
			s.call(t, "GET", "/api/me", str(wide, "token"), nil).must(t, 200)
		})
	}
}

// TestAuthFailuresLimitedPerAddress shows that past the limit of failed
// authentications an address gets 429 with Retry-After and code 4013 (a
// valid token from that address included, since telling it apart takes the
// lookup the block avoids), while a valid token from another address keeps
// working.
func TestAuthFailuresLimitedPerAddress(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			env["PERGOLA_AUTH_FAILURES_PER_MIN"] = "5"
			s := startServer(t, env)
			bad := func(from string) reply {
				return s.send(t, rawRequest{method: "GET", path: "/api/me", from: from,
					header: map[string]string{"Authorization": "Bearer pat_made_up_" + testenv.Suffix()}})
			}
			for i := 0; i < 5; i++ {
				bad("127.0.0.1").fails(t, 401, 4100, "authentication is invalid")
			}
			for i := 0; i < 3; i++ {
				r := bad("127.0.0.1")
				r.fails(t, 429, 4013, "too many failed authentications")
				if r.header.Get("Retry-After") == "" {
					t.Fatal("429 without Retry-After")
				}
			}
			valid := rawRequest{method: "GET", path: "/api/me", header: map[string]string{"Authorization": "Bearer " + bootstrapToken}}
			s.send(t, valid).fails(t, 429, 4013, "too many failed authentications")
			valid.from = "127.0.0.2"
			s.send(t, valid).must(t, 200)
			bad("127.0.0.2").fails(t, 401, 4100, "authentication is invalid")
		})
	}
}

// TestInvalidUTF8Refused shows JSON text that is not valid UTF-8, or that
// escapes a lone surrogate, is refused with 400 before anything is stored,
// on the Coze and console APIs alike; a valid surrogate pair and an escaped
// backslash before "ud800" are kept as sent.
func TestInvalidUTF8Refused(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	s, ws := c.s, c.ws
	post := func(path, body string) reply {
		return s.send(t, rawRequest{method: "POST", path: path, body: strings.NewReader(body),
			header: map[string]string{"Authorization": "Bearer " + bootstrapToken, "Content-Type": "application/json"}})
	}
	model := `"model":{"model_id":"fake"},`
	post("/api/bots", `{"workspace_id":"`+ws+`",`+model+`"name":"bad `+"\xff\xfe"+` name"}`).fails(t, 400, 4000, "not valid UTF-8 (first bad byte at offset")
	post("/v1/bot/create", `{"space_id":"`+ws+`","name":"bad `+"\xc3"+`"}`).fails(t, 400, 4000, "not valid UTF-8")
	post("/api/bots", `{"workspace_id":"`+ws+`",`+model+`"name":"half \ud800 pair"}`).fails(t, 400, 4000, "lone UTF-16 surrogate")
	post("/api/bots", `{"workspace_id":"`+ws+`",`+model+`"name":"low \udc00 first"}`).fails(t, 400, 4000, "lone UTF-16 surrogate")
	post("/api/workspaces", `{"name":"ws `+"\xff"+`"}`).fails(t, 400, 4000, "not valid UTF-8")
	list := s.call(t, "GET", "/api/bots?workspace_id="+ws, bootstrapToken, nil).must(t, 200).data
	if n := len(items(t, list, "items")); n != 0 {
		t.Fatalf("%d bots stored from refused requests", n)
	}
	post("/api/bots", `{"workspace_id":"`+ws+`",`+model+`"name":"smile \ud83d\ude00 \\ud800 literal"}`).must(t, 201)
	got := items(t, s.call(t, "GET", "/api/bots?workspace_id="+ws, bootstrapToken, nil).must(t, 200).data, "items")
	if len(got) != 1 || str(got[0], "name") != "smile 😀 \\ud800 literal" {
		t.Fatalf("bots %v, want one named %q", got, "smile 😀 \\ud800 literal")
	}
	if names := s.workspaceNames(t, bootstrapToken); len(names) != 1 {
		t.Fatalf("workspaces %q, want only the personal one", names)
	}
}
