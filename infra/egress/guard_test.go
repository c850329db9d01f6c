package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// resolverOf answers names from a fixed table, like a DNS server would.
func resolverOf(table map[string]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range strings.Split(table[host], ",") {
			if a != "" {
				out = append(out, netip.MustParseAddr(a))
			}
		}
		if len(out) == 0 {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return out, nil
	}
}

func newGuard(t *testing.T, cfg Config) *Guard {
	t.Helper()
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// okServer answers "ok" on 127.0.0.1.
func okServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, _ := url.Parse(srv.URL)
	return u.Port()
}

func get(c *http.Client, rawURL string) (string, error) {
	resp, err := c.Get(rawURL)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestRefusals(t *testing.T) {
	srv := okServer(t)
	p := port(t, srv)
	resolve := resolverOf(map[string]string{"loop.test": "127.0.0.1", "mixed.test": "8.8.8.8,10.0.0.9"})
	cases := []struct {
		name, url, want string
	}{
		{"loopback without allow", srv.URL, "127.0.0.1 is a loopback address (allow it with PERGOLA_EGRESS_ALLOW)"},
		{"IPv6 loopback", "http://[::1]:" + p + "/", "::1 is a loopback address"},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:" + p + "/", "IPv6 form of 127.0.0.1"},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"},
		{"metadata name", "http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is a cloud metadata host name"},
		{"private 10/8", "http://10.0.0.1/", "10.0.0.1 is a private address"},
		{"private 192.168/16", "http://192.168.1.1/", "192.168.1.1 is a private address"},
		{"unique-local", "http://[fd00::1]/", "fd00::1 is a unique-local address"},
		{"unspecified", "http://0.0.0.0:" + p + "/", "0.0.0.0 is an unspecified address"},
		{"CGNAT", "http://100.64.0.1/", "carrier-grade NAT"},
		{"name resolving to loopback", "http://loop.test:" + p + "/", "loop.test resolves to 127.0.0.1, a loopback address"},
		{"name with one private answer", "http://mixed.test/", "mixed.test resolves to 10.0.0.9, a private address"},
		{"file scheme", "file:///etc/passwd", `scheme "file" is not allowed`},
		{"gopher scheme", "gopher://example.com/", `scheme "gopher" is not allowed`},
		{"loopback on another port", srv.URL, "127.0.0.1 is a loopback address"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuard(t, Config{Resolver: resolve, Allow: []string{"127.0.0.1:1"}})
			_, err := get(g.Client(), tc.url)
			if !errors.Is(err, ErrRefused) || !errors.Is(err, errs.ErrForbidden) {
				t.Fatalf("GET %s: err = %v, want a refusal", tc.url, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("GET %s: err = %q, want it to say %q", tc.url, err, tc.want)
			}
		})
	}
}

func TestAllowedWhenListed(t *testing.T) {
	srv := okServer(t)
	p := port(t, srv)
	resolve := resolverOf(map[string]string{"api.test": "127.0.0.1", "a.svc.test": "127.0.0.1"})
	cases := []struct {
		name  string
		allow string
		url   string
	}{
		{"by IP", "127.0.0.1", srv.URL},
		{"by CIDR", "127.0.0.0/8", srv.URL},
		{"by host:port", "127.0.0.1:" + p, srv.URL},
		{"by host name", "api.test", "http://api.test:" + p + "/"},
		{"by host name and port", "api.test:" + p, "http://api.test:" + p + "/"},
		{"by wildcard name", "*.svc.test", "http://a.svc.test:" + p + "/"},
		{"by IP for a name", "127.0.0.1", "http://api.test:" + p + "/"},
		{"mapped form by IPv4 entry", "127.0.0.1", "http://[::ffff:127.0.0.1]:" + p + "/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuard(t, Config{Allow: []string{tc.allow}, Resolver: resolve})
			body, err := get(g.Client(), tc.url)
			if err != nil || body != "ok" {
				t.Fatalf("GET %s with allow %q = %q, %v", tc.url, tc.allow, body, err)
			}
		})
	}
}

func TestDialChecksTheDialledAddress(t *testing.T) {
	g := newGuard(t, Config{Resolver: resolverOf(map[string]string{"rebind.test": "127.0.0.1"})})
	for _, addr := range []string{"10.0.0.1:80", "[::1]:80", "169.254.169.254:80", "rebind.test:80"} {
		if _, err := g.dial(context.Background(), "tcp", addr); !errors.Is(err, ErrRefused) {
			t.Errorf("dial %s: %v, want a refusal", addr, err)
		}
	}
}

// TestNoRebindingGap shows that a name that passed a check and then
// resolves to loopback is refused when dialled.
func TestNoRebindingGap(t *testing.T) {
	srv := okServer(t)
	answers := []string{"93.184.216.34", "127.0.0.1"}
	calls := 0
	g := newGuard(t, Config{Resolver: func(context.Context, string) ([]netip.Addr, error) {
		a := answers[min(calls, len(answers)-1)]
		calls++
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}})
	target := "http://rebind.test:" + port(t, srv) + "/"
	if err := g.CheckURL(context.Background(), target); err != nil {
		t.Fatalf("CheckURL with a public answer: %v", err)
	}
	if _, err := get(g.Client(), target); !errors.Is(err, ErrRefused) {
		t.Fatalf("GET after the name rebound to loopback: %v, want a refusal", err)
	}
}

func TestCheckURL(t *testing.T) {
	g := newGuard(t, Config{Resolver: resolverOf(map[string]string{"pub.test": "8.8.8.8", "loop.test": "127.0.0.1"})})
	cases := []struct {
		url  string
		want error
	}{
		{"https://pub.test/v1", nil},
		{"http://loop.test/", ErrRefused},
		{"http://10.0.0.1/", ErrRefused},
		{"ftp://pub.test/", ErrRefused},
		{"http://%zz", errs.ErrInvalid},
	}
	for _, tc := range cases {
		err := g.CheckURL(context.Background(), tc.url)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("CheckURL(%s) = %v, want %v", tc.url, err, tc.want)
		}
	}
	var dnsErr *net.DNSError
	if err := g.CheckURL(context.Background(), "http://missing.test/"); !errors.As(err, &dnsErr) {
		t.Errorf("CheckURL of an unknown name = %v, want the resolver's error", err)
	}
}

func ExampleGuard_Client() {
	g, _ := New(Config{})
	_, err := g.Client().Get("http://169.254.169.254/latest/meta-data/")
	fmt.Println(errors.Is(err, ErrRefused))
	// Output: true
}
