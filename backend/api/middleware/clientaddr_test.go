package middleware

import (
	"io"
	"log/slog"
	"testing"

	"github.com/cloudwego/hertz/pkg/common/ut"

	"github.com/pergola-ai/pergola/infra/memory"
)

// TestAcceptedTokenPassesABlockedAddress shows that people sharing an
// address with an attacker keep working with the token they already
// used, while new tokens from there wait for the block to end.
func TestAcceptedTokenPassesABlockedAddress(t *testing.T) {
	auth := &countingAuth{}
	guard := NewFailureGuard(memory.NewRateLimiter(), 2, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	e := engine(Auth(auth, guard))
	call := func(token string) int {
		h := ut.Header{Key: "Authorization", Value: "Bearer " + token}
		return ut.PerformRequest(e, "GET", "/x", nil, h).Result().StatusCode()
	}
	if got := call("good"); got != 200 {
		t.Fatalf("good token: %d", got)
	}
	for i, want := range []int{401, 401, 429, 429} {
		if got := call("bad"); got != want {
			t.Fatalf("bad token %d: %d, want %d", i+1, got, want)
		}
	}
	if got := call("good"); got != 200 {
		t.Fatalf("the token accepted before the block: %d, want 200", got)
	}
	if got := call("other"); got != 429 {
		t.Fatalf("a token never accepted, from the blocked address: %d, want 429", got)
	}
}

// TestClientAddrBelievesOnlyTrustedProxies checks which address failures
// are counted against.
func TestClientAddrBelievesOnlyTrustedProxies(t *testing.T) {
	proxies, err := ParseProxies([]string{"10.0.0.0/8", " 192.0.2.1 "})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseProxies([]string{"not-an-ip"}); err == nil {
		t.Fatal("a bad entry was accepted")
	}
	cases := []struct {
		peer, xff string
		p         Proxies
		want      string
	}{
		{"203.0.113.9", "1.2.3.4", proxies, "203.0.113.9"},
		{"10.1.2.3", "1.2.3.4", nil, "10.1.2.3"},
		{"10.1.2.3", "1.2.3.4", proxies, "1.2.3.4"},
		{"10.1.2.3", "6.6.6.6, 1.2.3.4, 192.0.2.1", proxies, "1.2.3.4"},
		{"10.1.2.3", "", proxies, "10.1.2.3"},
		{"10.1.2.3", "10.9.9.9", proxies, "10.9.9.9"},
	}
	for _, tc := range cases {
		if got := tc.p.resolve(tc.peer, tc.xff); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
}
