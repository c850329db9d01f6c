package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/infra/egress"
)

type addIn struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to say back"`
	Fail bool   `json:"fail,omitempty" jsonschema:"fail with the text instead"`
}

// testServer is an MCP server on 127.0.0.1 with two tools, add and echo,
// served over one transport. It records the Authorization header of every
// HTTP request and, when token is set, answers 401 without it.
type testServer struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newTestServer(t *testing.T, transport, token string) *testServer {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1.0"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Says the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			if in.Fail {
				return nil, nil, errors.New("echo refused: " + in.Text)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}, &sdk.TextContent{Text: "(echoed)"}}}, nil, nil
		})
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	if transport == TransportSSE {
		h = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil)
	}
	ts := &testServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.auths = append(ts.auths, r.Header.Get("Authorization"))
		ts.mu.Unlock()
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *testServer) seenAuth() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.auths...)
}

// guarded returns the egress client with allow entries.
func guarded(t *testing.T, cfg egress.Config) *http.Client {
	t.Helper()
	g, err := egress.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g.Client()
}

func connect(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Connect(%s, %s): %v", cfg.URL, cfg.Transport, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
