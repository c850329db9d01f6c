package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// corsRequest sends method path with an Origin and the given headers and
// returns the answer, body drained.
func corsRequest(t *testing.T, s *testServer, method, path, origin string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// hasToken reports whether the comma-separated header value lists want,
// ignoring case.
func hasToken(value, want string) bool {
	for _, part := range strings.Split(value, ",") {
		if strings.EqualFold(strings.TrimSpace(part), want) {
			return true
		}
	}
	return false
}

var preflight = map[string]string{
	"Access-Control-Request-Method":  "GET",
	"Access-Control-Request-Headers": "authorization",
}

// TestCORSPreflight checks that with the default origins ("*") a browser's
// preflight is answered 204 with what it asked for.
func TestCORSPreflight(t *testing.T) {
	s := startServer(t, nil)
	resp := corsRequest(t, s, "OPTIONS", "/v1/users/me", "https://app.example", preflight)
	h := resp.Header
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight status %d, want 204", resp.StatusCode)
	}
	if got := h.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Fatalf("Access-Control-Allow-Origin = %q, want * (any origin, bearer tokens only)", got)
	}
	if got := h.Get("Access-Control-Allow-Credentials"); got != "" {
		t.Fatalf("an unlisted origin is offered credentials (the session cookie): %q", got)
	}
	if got := h.Get("Access-Control-Allow-Headers"); !hasToken(got, "authorization") {
		t.Fatalf("Access-Control-Allow-Headers = %q, want authorization", got)
	}
	for _, m := range []string{"GET", "POST", "PATCH", "DELETE"} {
		if !hasToken(h.Get("Access-Control-Allow-Methods"), m) {
			t.Fatalf("Access-Control-Allow-Methods = %q, want %s", h.Get("Access-Control-Allow-Methods"), m)
		}
	}
	if h.Get("Access-Control-Max-Age") == "" || !hasToken(h.Get("Vary"), "Origin") {
		t.Fatalf("preflight headers = %v; want Access-Control-Max-Age and Vary: Origin", h)
	}

	// A preflight of a route that needs a token is answered without one,
	// and asks for nothing else of the server: the admin API too.
	resp = corsRequest(t, s, "OPTIONS", "/api/admin/users", "https://app.example",
		map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"})
	if resp.StatusCode != http.StatusNoContent || !hasToken(resp.Header.Get("Access-Control-Allow-Headers"), "content-type") {
		t.Fatalf("admin preflight = %d %v", resp.StatusCode, resp.Header)
	}
}

// TestCORSOrigins checks PERGOLA_CORS_ORIGINS: the listed origin is allowed
// on preflights, ordinary requests and failures; any other gets no
// Access-Control-Allow-Origin.
func TestCORSOrigins(t *testing.T) {
	s := startServer(t, map[string]string{"PERGOLA_CORS_ORIGINS": "https://only.example"})
	bearer := map[string]string{"Authorization": "Bearer " + bootstrapToken}

	cases := []struct {
		name    string
		method  string
		path    string
		origin  string
		header  map[string]string
		status  int
		allowed bool
	}{
		{"preflight from another origin", "OPTIONS", "/v1/users/me", "https://app.example", preflight, 0, false},
		{"preflight from the allowed origin", "OPTIONS", "/v1/users/me", "https://only.example", preflight, 204, true},
		{"GET from the allowed origin", "GET", "/v1/users/me", "https://only.example", bearer, 200, true},
		{"GET from another origin", "GET", "/v1/users/me", "https://app.example", bearer, 200, false},
		{"GET from a look-alike origin", "GET", "/v1/users/me", "https://only.example.evil", bearer, 200, false},
		{"a 401 from the allowed origin", "GET", "/v1/users/me", "https://only.example", nil, 401, true},
		{"a 404 from the allowed origin", "GET", "/v1/nothing", "https://only.example", bearer, 404, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := corsRequest(t, s, tc.method, tc.path, tc.origin, tc.header)
			h := resp.Header
			if tc.status != 0 && resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			got := h.Get("Access-Control-Allow-Origin")
			if !tc.allowed {
				if got != "" || h.Get("Access-Control-Allow-Credentials") != "" || h.Get("Access-Control-Expose-Headers") != "" {
					t.Fatalf("origin %s is not allowed but got CORS headers %v", tc.origin, h)
				}
				return
			}
			if got != tc.origin {
				t.Fatalf("Access-Control-Allow-Origin = %q, want %q", got, tc.origin)
			}
			if !hasToken(h.Get("Vary"), "Origin") {
				t.Fatalf("Vary = %q, want Origin", h.Get("Vary"))
			}
			if tc.method != "OPTIONS" {
				if !hasToken(h.Get("Access-Control-Expose-Headers"), "X-Tt-Logid") || h.Get("X-Tt-Logid") == "" {
					t.Fatalf("X-Tt-Logid %q not exposed: Access-Control-Expose-Headers = %q",
						h.Get("X-Tt-Logid"), h.Get("Access-Control-Expose-Headers"))
				}
			}
		})
	}
}
