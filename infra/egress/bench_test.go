package egress

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// BenchmarkGet compares a GET through the guard with one through a plain
// client (with and without a total timeout, which costs a timer per
// request) over a kept-alive connection to a local server.
func BenchmarkGet(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	g, err := New(Config{Allow: []string{"127.0.0.1"}})
	if err != nil {
		b.Fatal(err)
	}
	clients := map[string]*http.Client{
		"plain":         {Transport: &http.Transport{MaxIdleConnsPerHost: 16}},
		"plain+timeout": {Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: DefaultTotalTimeout},
		"guarded":       g.Client(),
	}
	for _, name := range []string{"plain", "plain+timeout", "guarded"} {
		c := clients[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.Get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkCheck measures the address check a new connection pays.
func BenchmarkCheck(b *testing.B) {
	g, err := New(Config{Allow: []string{"10.1.0.0/16", "db.internal"}})
	if err != nil {
		b.Fatal(err)
	}
	addrs := []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("2606:4700::1111")}
	b.ReportAllocs()
	for b.Loop() {
		for _, a := range addrs {
			if err := g.checkAddr(a, 443, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
}
