package middleware

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/common/config"
	"github.com/cloudwego/hertz/pkg/common/ut"
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/memory"
)

// countingAuth accepts only "good" and counts its lookups.
type countingAuth struct{ lookups int }

func (a *countingAuth) Authenticate(_ context.Context, secret string) (identity.Principal, error) {
	if secret == "" {
		return identity.Principal{}, errs.Unauthenticated("missing token")
	}
	a.lookups++
	if secret != "good" {
		return identity.Principal{}, errs.Unauthenticated("authentication is invalid")
	}
	return identity.Principal{UserID: 1, TokenID: 1}, nil
}

func engine(handlers ...app.HandlerFunc) *route.Engine {
	opts := config.NewOptions(nil)
	opts.DisablePrintRoute = true
	e := route.NewEngine(opts)
	ok := func(ctx context.Context, c *app.RequestContext) { c.String(200, "ok") }
	e.Any("/x", append(handlers, ok)...)
	return e
}

// TestFailureGuardBlocksWithoutLookups shows that past the limit an
// address is answered 429 without asking the authenticator, that a missing
// token is not a failure, and that the block ends with its window.
func TestFailureGuardBlocksWithoutLookups(t *testing.T) {
	auth := &countingAuth{}
	guard := NewFailureGuard(memory.NewRateLimiter(), 3, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	e := engine(Auth(auth, guard))
	call := func(token string) int {
		h := []ut.Header{}
		if token != "" {
			h = append(h, ut.Header{Key: "Authorization", Value: "Bearer " + token})
		}
		return ut.PerformRequest(e, "GET", "/x", nil, h...).Result().StatusCode()
	}
	for i := 0; i < 5; i++ {
		if got := call(""); got != 401 {
			t.Fatalf("missing token: %d", got)
		}
	}
	for i, want := range []int{401, 401, 401, 429, 429, 429} {
		if got := call("bad"); got != want {
			t.Fatalf("bad token %d: %d, want %d", i+1, got, want)
		}
	}
	if got := call("good"); got != 429 {
		t.Fatalf("good token from the blocked address: %d, want 429", got)
	}
	if auth.lookups != 4 {
		t.Fatalf("%d lookups, want 4 (3 failures and the one past the limit)", auth.lookups)
	}
	if retry := guard.retryAfter(ClientAddr(ut.CreateUtRequestContext("GET", "/x", nil)), "", time.Now().Add(time.Minute+time.Second)); retry != 0 {
		t.Fatalf("still blocked a minute later: %s", retry)
	}
}

func TestCSRF(t *testing.T) {
	e := engine(CSRF([]string{"*", "https://console.example/"}))
	cookie := ut.Header{Key: "Cookie", Value: SessionCookie + "=s"}
	cases := []struct {
		name   string
		method string
		header []ut.Header
		body   string
		want   int
	}{
		{"cookie, listed origin, JSON", "POST", []ut.Header{cookie, {Key: "Origin", Value: "https://console.example"}, {Key: "Content-Type", Value: "application/json"}}, "{}", 200},
		{"cookie, same host", "PUT", []ut.Header{cookie, {Key: "Origin", Value: "https://example.com"}, {Key: "Content-Type", Value: "application/vnd.api+json"}}, "{}", 200},
		{"cookie, no origin, no body", "DELETE", []ut.Header{cookie}, "", 200},
		{"cookie, read", "GET", []ut.Header{cookie, {Key: "Origin", Value: "http://evil.example"}}, "", 200},
		{"bearer, evil origin", "POST", []ut.Header{cookie, {Key: "Authorization", Value: "Bearer t"}, {Key: "Origin", Value: "http://evil.example"}, {Key: "Content-Type", Value: "text/plain"}}, "{}", 200},
		{"no credentials", "POST", []ut.Header{{Key: "Origin", Value: "http://evil.example"}}, "{}", 200},
		{"star is not an origin", "POST", []ut.Header{cookie, {Key: "Origin", Value: "http://evil.example"}, {Key: "Content-Type", Value: "application/json"}}, "{}", 403},
		{"lookalike host", "POST", []ut.Header{cookie, {Key: "Origin", Value: "https://example.com.evil.example"}, {Key: "Content-Type", Value: "application/json"}}, "{}", 403},
		{"evil referer", "PATCH", []ut.Header{cookie, {Key: "Referer", Value: "http://evil.example/x"}, {Key: "Content-Type", Value: "application/json"}}, "{}", 403},
		{"text/plain", "POST", []ut.Header{cookie, {Key: "Content-Type", Value: "text/plain"}}, "{}", 403},
		{"body without type", "POST", []ut.Header{cookie}, "{}", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := ut.PerformRequest(e, tc.method, "http://example.com/x", &ut.Body{Body: strings.NewReader(tc.body), Len: len(tc.body)}, tc.header...).Result()
			if resp.StatusCode() != tc.want {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode(), resp.Body(), tc.want)
			}
		})
	}
}
