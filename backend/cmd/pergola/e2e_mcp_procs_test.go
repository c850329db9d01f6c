package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// alternating sends each request of an MCP client to the next of several
// processes in turn, as a load balancer without sticky sessions would.
type alternating struct {
	token string
	bases []*url.URL
	next  atomic.Int64
}

func (a *alternating) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	to := a.bases[int(a.next.Add(1)-1)%len(a.bases)]
	r.URL.Scheme, r.URL.Host, r.Host = to.Scheme, to.Host, to.Host
	r.Header.Set("Authorization", "Bearer "+a.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpAcrossProcesses: on MariaDB+Redis, a session opened on one process
// is served by the others (its requests alternate between two processes,
// with no routing by Mcp-Session-Id), and stays bound to its token there.
func mcpAcrossProcesses(t *testing.T, a, other *testServer) {
	t.Helper()
	var bases []*url.URL
	for _, s := range []*testServer{a, other} {
		u, err := url.Parse(s.base)
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, u)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "pergola-e2e", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: a.base + "/mcp", HTTPClient: &http.Client{Transport: &alternating{token: bootstrapToken, bases: bases}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect across processes: %v", err)
	}
	defer session.Close()
	for i := range 4 { // twice on each process
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "wf_weather", Arguments: map[string]any{"city": "Hop"}})
		if err != nil || res.IsError {
			t.Fatalf("call %d across processes: %v %+v", i, err, res)
		}
		if _, err := session.ListTools(ctx, nil); err != nil {
			t.Fatalf("tools/list %d across processes: %v", i, err)
		}
	}
	for _, s := range []*testServer{a, other} {
		req, _ := http.NewRequest("POST", s.base+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+bootstrapToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", "no-such-session")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("an unknown session on %s: %d, want 404", s.base, resp.StatusCode)
		}
	}
	// The session stays its token's on the process that did not open it.
	token := str(a.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "another"}).must(t, 201).data, "token")
	req, _ := http.NewRequest("POST", other.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another token on the session, on the other process: %d, want 403", resp.StatusCode)
	}
}
