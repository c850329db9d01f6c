package main

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// kbSetup is a server with the fake embedding model registered (through a
// gate the test can close to hold embedding requests) and the
// bootstrap workspace.
type kbSetup struct {
	s    *testServer
	gate *embedGate
	ws   string
}

func newKBSetup(t *testing.T, b backend, extra map[string]string) *kbSetup {
	t.Helper()
	gate := fakeEmbeddings(t)
	env := b.env(t)
	for k, v := range extra {
		env[k] = v
	}
	return kbOn(t, startServer(t, env), gate)
}

// fakeEmbeddings starts the fake model server behind a gate.
func fakeEmbeddings(t *testing.T) *embedGate {
	t.Helper()
	llm := fakellm.New()
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	return newEmbedGate(t, url)
}

// kbOn registers the gated fake embedding model on a running server.
func kbOn(t *testing.T, s *testServer, gate *embedGate) *kbSetup {
	t.Helper()
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{
		"id": "embed", "provider": "openai", "base_url": gate.url, "api_key": "k", "model": "fake-embed", "kind": "embedding",
	}).must(t, 201)
	ws := s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200)
	return &kbSetup{s: s, gate: gate, ws: str(items(t, ws.data, "workspaces")[0], "id")}
}

// base creates a knowledge base of a format and returns its id.
func (k *kbSetup) base(t *testing.T, name string, format int) string {
	t.Helper()
	r := k.s.call(t, "POST", "/api/knowledge", bootstrapToken, map[string]any{"workspace_id": k.ws, "name": name, "format_type": format}).must(t, 201)
	return str(r.data, "id")
}

// add adds documents and returns their ids.
func (k *kbSetup) add(t *testing.T, kb string, docs ...map[string]any) []string {
	t.Helper()
	r := k.s.call(t, "POST", "/api/knowledge/"+kb+"/documents", bootstrapToken, map[string]any{"documents": docs}).must(t, 201)
	var ids []string
	for _, d := range items(t, r.data, "documents") {
		if d["status"].(float64) != 0 {
			t.Fatalf("added document answered with status %v, want 0 (processing)", d["status"])
		}
		ids = append(ids, str(d, "id"))
	}
	return ids
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// waitDone polls the progress of documents until none is processing and
// returns each one's progress by id.
func (k *kbSetup) waitDone(t *testing.T, kb string, ids ...string) map[string]map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := k.s.call(t, "GET", "/api/knowledge/"+kb+"/progress?document_ids="+strings.Join(ids, ","), bootstrapToken, nil).must(t, 200)
		out := map[string]map[string]any{}
		pending := false
		for _, p := range items(t, r.data, "items") {
			out[str(p, "document_id")] = p
			pending = pending || p["status"].(float64) == 0
		}
		if !pending && len(out) == len(ids) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("documents still processing after 60s: %v", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// search runs a retrieval test and returns the hits' texts, best first.
func (k *kbSetup) search(t *testing.T, kb string, body map[string]any) ([]string, []map[string]any) {
	t.Helper()
	r := k.s.call(t, "POST", "/api/knowledge/"+kb+"/search", bootstrapToken, body).must(t, 200)
	hits := items(t, r.data, "hits")
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = str(h["chunk"].(map[string]any), "text")
	}
	return texts, hits
}

// embedGate forwards requests to the fake model server; while closed it
// holds embedding requests after the first `pass` until it opens.
type embedGate struct {
	url    string
	mu     sync.Mutex
	open   chan struct{}
	pass   int
	seen   int
	held   chan struct{} // closed when the first request is held
	closed bool
}

func newEmbedGate(t *testing.T, target string) *embedGate {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	g := &embedGate{open: make(chan struct{}), held: make(chan struct{})}
	close(g.open)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/embeddings") {
			g.wait(r)
		}
		proxy.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { g.release(); _ = srv.Close() })
	g.url = fmt.Sprintf("http://%s%s", ln.Addr(), u.Path)
	return g
}

// hold closes the gate after pass more embedding requests.
func (g *embedGate) hold(pass int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open, g.held, g.pass, g.seen, g.closed = make(chan struct{}), make(chan struct{}), pass, 0, true
}

// release opens the gate.
func (g *embedGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		g.closed = false
		close(g.open)
	}
}

func (g *embedGate) wait(r *http.Request) {
	g.mu.Lock()
	g.seen++
	open, held := g.open, g.held
	hold := g.closed && g.seen > g.pass
	if hold && g.seen == g.pass+1 {
		close(held)
	}
	g.mu.Unlock()
	if hold {
		select {
		case <-open:
		case <-r.Context().Done():
		}
	}
}
