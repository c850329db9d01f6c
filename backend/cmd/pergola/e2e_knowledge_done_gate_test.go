package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// batchGate is the fake embedding model behind a gate that, while
// closed, holds the embedding batches of documents (requests of more than
// one input) after the first few, and lets queries (one input) through,
// so searches answer while a document's indexing is stuck.
type batchGate struct {
	url  string
	mu   sync.Mutex
	pass int           // batches still let through while closed
	shut bool          // closed: batches past pass wait for open
	open chan struct{} // closed by release
	held chan struct{} // closed when a batch is first held
}

func newBatchGate(t *testing.T) *batchGate {
	t.Helper()
	llm := fakellm.New()
	target, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	u, _ := url.Parse(target)
	g := &batchGate{open: make(chan struct{}), held: make(chan struct{})}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/embeddings") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var in struct {
				Input []json.RawMessage `json:"input"`
			}
			if json.Unmarshal(body, &in) == nil && len(in.Input) > 1 {
				g.wait(r)
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { g.release(); srv.Close() })
	g.url = srv.URL + u.Path
	return g
}

// register adds the gated model as the default embedding model of s and
// returns the bootstrap workspace's id.
func (g *batchGate) register(t *testing.T, s *testServer) string {
	t.Helper()
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "embed", "kind": "embedding", "provider": "openai",
		"base_url": g.url, "api_key": "k", "model": "fake-embed"}).must(t, 201)
	return str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
}

// hold closes the gate after pass more batches.
func (g *batchGate) hold(pass int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.release0()
	g.open, g.held, g.pass, g.shut = make(chan struct{}), make(chan struct{}), pass, true
}

// release opens the gate.
func (g *batchGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.release0()
}

func (g *batchGate) release0() {
	if g.shut {
		g.shut = false
		close(g.open)
	}
}

// waitHeld waits until the gate holds a batch.
func (g *batchGate) waitHeld(t *testing.T, what string) {
	t.Helper()
	g.mu.Lock()
	held := g.held
	g.mu.Unlock()
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatalf("waited 30s for %s", what)
	}
}

func (g *batchGate) wait(r *http.Request) {
	g.mu.Lock()
	open, hold := g.open, g.shut && g.pass == 0
	if g.shut && g.pass > 0 {
		g.pass--
	}
	if hold {
		select {
		case <-g.held:
		default:
			close(g.held)
		}
	}
	g.mu.Unlock()
	if hold {
		select {
		case <-open:
		case <-r.Context().Done():
		}
	}
}
