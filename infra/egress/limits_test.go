package egress

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestResponseSizeCap(t *testing.T) {
	const limit = 1000
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		w.Write([]byte(strings.Repeat("x", n)))
	})
	g := newGuard(t, Config{Allow: []string{"127.0.0.1"}, MaxResponseBytes: limit})
	cases := []struct {
		name  string
		query string
		fails bool
	}{
		{"under the cap", "n=999", false},
		{"exactly the cap", "n=1000", false},
		{"one byte over", "n=1001", true},
		{"far over", "n=3000000", true},
		{"over without Content-Length", "n=5000&chunked=1", true},
		{"at the cap without Content-Length", "n=1000&chunked=1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, err := get(g.Client(), srv.URL+"/?"+tc.query)
			if tc.fails != errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want too large: %v", err, tc.fails)
			}
			if len(body) > limit {
				t.Fatalf("read %d bytes past the cap of %d", len(body), limit)
			}
		})
	}
}

func TestTotalTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/trickle" {
			w.WriteHeader(http.StatusOK)
			for range 100 {
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				select {
				case <-release:
					return
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	g := newGuard(t, Config{Allow: []string{"127.0.0.1"}, TotalTimeout: 200 * time.Millisecond})
	for _, path := range []string{"/slow-headers", "/trickle"} {
		t.Run(path, func(t *testing.T) {
			start := time.Now()
			_, err := get(g.Client(), srv.URL+path)
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("err = %v, want a timeout", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %v with a 200ms total timeout", d)
			}
		})
	}
}

func TestRedirects(t *testing.T) {
	var hits atomic.Int32
	var loop *httptest.Server
	loop = serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, loop.URL+"/again", http.StatusFound)
	})
	other := okServer(t)
	resolve := resolverOf(map[string]string{"loop.test": "127.0.0.1"})
	redirector := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	g := newGuard(t, Config{Allow: []string{"127.0.0.1:" + port(t, redirector), "127.0.0.1:" + port(t, loop)}, Resolver: resolve})

	t.Run("loop stops at the cap", func(t *testing.T) {
		_, err := get(g.Client(), loop.URL)
		if !errors.Is(err, ErrTooManyRedirects) {
			t.Fatalf("err = %v, want too many redirects", err)
		}
		if n := hits.Load(); n != DefaultMaxRedirects+1 {
			t.Fatalf("server saw %d requests, want %d", n, DefaultMaxRedirects+1)
		}
	})
	refused := map[string]string{
		"to a private address":            "http://10.0.0.1/",
		"to the metadata address":         "http://169.254.169.254/",
		"to a loopback port not allowed":  other.URL,
		"to a name resolving to loopback": "http://loop.test:" + port(t, other) + "/",
		"to a file URL":                   "file:///etc/passwd",
	}
	for name, to := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := get(g.Client(), redirector.URL+"/?to="+to)
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("redirect to %s: err = %v, want a refusal", to, err)
			}
		})
	}
	t.Run("none followed when negative", func(t *testing.T) {
		g := newGuard(t, Config{Allow: []string{"127.0.0.1"}, MaxRedirects: -1})
		resp, err := g.Client().Get(redirector.URL + "/?to=/elsewhere")
		if err != nil || resp.StatusCode != http.StatusFound {
			t.Fatalf("resp = %v, err = %v, want the 302 itself", resp, err)
		}
		resp.Body.Close()
	})
}

func TestCredentialsDoNotFollowARedirectToAnotherHost(t *testing.T) {
	seen := make(chan http.Header, 2)
	target := serve(t, func(_ http.ResponseWriter, r *http.Request) { seen <- r.Header.Clone() })
	redirector := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	resolve := resolverOf(map[string]string{"a.test": "127.0.0.1", "b.test": "127.0.0.1"})
	g := newGuard(t, Config{Allow: []string{"127.0.0.1"}, Resolver: resolve})
	cases := []struct {
		name, to string
		keeps    bool
	}{
		{"same host", "http://a.test:" + port(t, target) + "/", true},
		{"other host", "http://b.test:" + port(t, target) + "/", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, "http://a.test:"+port(t, redirector)+"/?to="+tc.to, nil)
			req.Header.Set("X-Api-Key", "secret")
			req.Header.Set("Accept", "application/json")
			resp, err := g.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			h := <-seen
			if got := h.Get("X-Api-Key") != ""; got != tc.keeps {
				t.Fatalf("X-Api-Key reached the target: %v, want %v", got, tc.keeps)
			}
			if h.Get("Accept") != "application/json" {
				t.Fatalf("Accept dropped: %v", h)
			}
		})
	}
}
