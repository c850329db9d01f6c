package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/egress"
)

var transports = []string{TransportStreamable, TransportSSE}

func TestListAndCall(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv := newTestServer(t, transport, "")
			c := connect(t, Config{URL: srv.URL, Transport: transport, HTTP: guarded(t, egress.Config{Allow: []string{"127.0.0.1"}})})
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			if !slices.Equal(names, []string{"add", "echo"}) {
				t.Fatalf("tools = %v, want add and echo", names)
			}
			props, _ := tools[0].InputSchema["properties"].(map[string]any)
			if tools[0].Description != "Adds two numbers." || props["a"] == nil || props["b"] == nil {
				t.Fatalf("add = %+v, want its description and a schema with a and b", tools[0])
			}
			calls := []struct {
				tool string
				args map[string]any
				want string
			}{
				{"add", map[string]any{"a": 2, "b": 40}, `{"sum":42}`},
				{"echo", map[string]any{"text": "hi"}, "hi\n(echoed)"},
			}
			for _, call := range calls {
				got, err := c.CallTool(context.Background(), call.tool, call.args)
				if err != nil || got != call.want {
					t.Fatalf("CallTool(%s) = %q, %v; want %q", call.tool, got, err, call.want)
				}
			}
		})
	}
}

func TestToolErrors(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv := newTestServer(t, transport, "")
			c := connect(t, Config{URL: srv.URL, Transport: transport})
			_, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "no", "fail": true})
			var te *ToolError
			if !errors.As(err, &te) || te.Error() != "echo refused: no" {
				t.Fatalf("failing tool = %v, want a ToolError with its text", err)
			}
			_, err = c.CallTool(context.Background(), "missing", nil)
			if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "missing") {
				t.Fatalf("unknown tool = %v, want a protocol error naming it", err)
			}
			_, err = c.CallTool(context.Background(), "add", map[string]any{"a": "two"})
			if err == nil {
				t.Fatal("add with a string argument succeeded")
			}
		})
	}
}

func TestConnectFailures(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	notMCP := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>hello</html>"))
	}))
	defer notMCP.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	cases := []struct {
		name      string
		cfg       Config
		want, sub error
	}{
		{"server down", Config{URL: down.URL}, ErrUnreachable, errs.ErrUnavailable},
		{"server down, sse", Config{URL: down.URL, Transport: TransportSSE}, ErrUnreachable, errs.ErrUnavailable},
		{"html page", Config{URL: notMCP.URL}, ErrNotMCP, errs.ErrInvalid},
		{"html page, sse", Config{URL: notMCP.URL, Transport: TransportSSE}, ErrNotMCP, errs.ErrInvalid},
		{"404", Config{URL: notFound.URL + "/mcp"}, ErrNotMCP, errs.ErrInvalid},
		{"bad url", Config{URL: "ftp://example.com"}, errs.ErrInvalid, errs.ErrInvalid},
		{"bad transport", Config{URL: notMCP.URL, Transport: "websocket"}, errs.ErrInvalid, errs.ErrInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Connect(context.Background(), tc.cfg)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			if !errors.Is(err, tc.want) || !errors.Is(err, tc.sub) {
				t.Fatalf("Connect = %v, want %v and %v", err, tc.want, tc.sub)
			}
		})
	}
}

func TestAuthHeaders(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv := newTestServer(t, transport, "s3cret")
			_, err := Connect(context.Background(), Config{URL: srv.URL, Transport: transport})
			if !errors.Is(err, ErrAuth) || !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "HTTP 401 Unauthorized") {
				t.Fatalf("Connect without the token = %v, want refused credentials, 401", err)
			}
			c := connect(t, Config{URL: srv.URL, Transport: transport, Headers: map[string]string{"Authorization": "Bearer s3cret"}})
			if _, err := c.CallTool(context.Background(), "add", map[string]any{"a": 1, "b": 1}); err != nil {
				t.Fatal(err)
			}
			seen := srv.seenAuth()
			if n := len(seen); seen[n-1] != "Bearer s3cret" {
				t.Fatalf("the server saw Authorization %q last", seen[n-1])
			}
		})
	}
}

func TestGuardedClient(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv := newTestServer(t, transport, "")
			_, err := Connect(context.Background(), Config{URL: srv.URL, Transport: transport, HTTP: guarded(t, egress.Config{})})
			if !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address") {
				t.Fatalf("Connect to loopback without allow = %v, want a refusal", err)
			}
			c := connect(t, Config{URL: srv.URL, Transport: transport, HTTP: guarded(t, egress.Config{Allow: []string{"127.0.0.1"}})})
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSessionOutlivesConnectContextAndTimeout checks that a session keeps
// working after the context given to Connect ends and after the HTTP
// client's Timeout has passed (the SSE stream stays open that long).
func TestSessionOutlivesConnectContextAndTimeout(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			srv := newTestServer(t, transport, "")
			hc := guarded(t, egress.Config{Allow: []string{"127.0.0.1"}, TotalTimeout: 200 * time.Millisecond})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			c, err := Connect(ctx, Config{URL: srv.URL, Transport: transport, HTTP: hc})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			time.Sleep(400 * time.Millisecond)
			// A deadline of its own, so that the 200ms Timeout does not
			// bound the call itself on a slow machine.
			callCtx, cancelCall := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancelCall()
			if got, err := c.CallTool(callCtx, "add", map[string]any{"a": 1, "b": 2}); err != nil || got != `{"sum":3}` {
				t.Fatalf("CallTool after the connect context and the timeout = %q, %v", got, err)
			}
		})
	}
}

func TestClosedClient(t *testing.T) {
	srv := newTestServer(t, TransportStreamable, "")
	c, err := Connect(context.Background(), Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.ListTools(context.Background()); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("ListTools after Close = %v, want unreachable", err)
	}
}
