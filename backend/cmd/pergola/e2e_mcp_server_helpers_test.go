package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds a token to every request of the MCP client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpClient is an MCP session of the Go SDK's client on /mcp, with the
// progress notifications it received.
type mcpClient struct {
	session  *mcp.ClientSession
	mu       sync.Mutex
	progress map[any][]string
	changed  map[string]int // list_changed notifications received, by list
}

// connectMCP opens an MCP session with token; answer, when set, makes the
// client declare elicitation and answer questions with it.
func (s *testServer) connectMCP(t *testing.T, token string, answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcpClient, error) {
	t.Helper()
	return s.connectMCPVia(t, bearerTransport{token}, answer)
}

// connectMCPVia opens an MCP session whose requests go through rt (which
// adds the token, and may send them elsewhere).
func (s *testServer) connectMCPVia(t *testing.T, rt http.RoundTripper, answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcpClient, error) {
	t.Helper()
	c := &mcpClient{progress: map[any][]string{}, changed: map[string]int{}}
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.progress[r.Params.ProgressToken] = append(c.progress[r.Params.ProgressToken], r.Params.Message)
	},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { c.count("tools") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { c.count("prompts") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { c.count("resources") },
	}
	if answer != nil {
		opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return answer(r) }
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "pergola-e2e", Version: "1"}, opts)
	transport := &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: rt}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = session.Close() })
	c.session = session
	return c, nil
}

// toolNames lists the session's tools by name.
func (c *mcpClient) tools(t *testing.T) map[string]*mcp.Tool {
	t.Helper()
	res, err := c.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

// call calls a tool with a progress token and returns its result.
func (c *mcpClient) call(t *testing.T, name string, args map[string]any, progressToken string) *mcp.CallToolResult {
	t.Helper()
	res, err := c.try(name, args, progressToken)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func (c *mcpClient) try(name string, args map[string]any, progressToken string) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if progressToken != "" {
		params.SetProgressToken(progressToken)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.session.CallTool(ctx, params)
}

// progressOf waits a little for the progress notifications of a token
// (they travel ahead of the result but are handled on their own
// goroutine) and returns their messages.
func (c *mcpClient) progressOf(token string, atLeast int) []string {
	for range 50 {
		c.mu.Lock()
		got := append([]string(nil), c.progress[token]...)
		c.mu.Unlock()
		if len(got) >= atLeast {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.progress[token]
}

// textOf joins a result's text content.
func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "")
}

// structured decodes a result's structured content.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structured content %s is not an object", b)
	}
	return m
}

// mustFailWith checks a tool error's text.
func mustFailWith(t *testing.T, res *mcp.CallToolResult, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %q", textOf(res))
	}
	for _, w := range want {
		if !strings.Contains(textOf(res), w) {
			t.Fatalf("tool error %q does not say %q", textOf(res), w)
		}
	}
}

// postRaw posts body with a bearer token or a session cookie and returns
// the status and the whole body as text.
func (s *testServer) postRaw(t *testing.T, path, token, cookie string, body any) string {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "pergola_session", Value: cookie})
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return strconv.Itoa(resp.StatusCode) + " " + string(raw)
}

func (c *mcpClient) count(list string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changed[list]++
}

// waitChanged waits until the client received at least n list_changed
// notifications of list, polling briefly; it returns how many it got.
func (c *mcpClient) waitChanged(list string, n int) int {
	for range 250 {
		c.mu.Lock()
		got := c.changed[list]
		c.mu.Unlock()
		if got >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed[list]
}
