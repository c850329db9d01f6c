package plugin_test

import (
	"context"
	"errors"
	"fmt"
	"sync"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/errs"
)

// fakeMCP is an MCP server held in memory: a weather tool whose name does
// not fit a model's pattern, and a failing tool.
type fakeMCP struct {
	mu      sync.Mutex
	dials   []pluginapp.MCPServer
	tools   []pluginapp.MCPTool
	calls   []string
	down    bool // the next calls fail as a broken connection
	refused bool // dialing is refused like the egress guard does
}

func newFakeMCP() *fakeMCP {
	return &fakeMCP{tools: []pluginapp.MCPTool{
		{Name: "weather.get", Description: "The weather in a city", InputSchema: map[string]any{
			"type": "object", "required": []any{"city"}, "properties": map[string]any{"city": map[string]any{"type": "string"}}}},
		{Name: "fail", Description: "Always fails"},
	}}
}

func (f *fakeMCP) Dial(_ context.Context, s pluginapp.MCPServer) (pluginapp.MCPSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refused {
		return nil, fmt.Errorf("mcp: connect to %s: %w", s.URL, errs.Forbidden("egress refused: 10.0.0.1 is a private address"))
	}
	f.dials = append(f.dials, s)
	return &fakeSession{f: f}, nil
}

type fakeSession struct{ f *fakeMCP }

func (s *fakeSession) ListTools(context.Context) ([]pluginapp.MCPTool, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	return s.f.tools, nil
}

func (s *fakeSession) CallTool(_ context.Context, name string, args map[string]any) (string, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.calls = append(s.f.calls, name)
	if s.f.down {
		s.f.down = false
		return "", fmt.Errorf("mcp: the MCP server is unreachable: %w", errs.ErrUnavailable)
	}
	if name == "fail" {
		return "", errors.New("the tool is broken")
	}
	return fmt.Sprintf("sunny in %v", args["city"]), nil
}

func (s *fakeSession) Close() {}

// testBuiltins is a catalog of one built-in that echoes its arguments.
func testBuiltins() []pluginapp.Builtin {
	return []pluginapp.Builtin{{Key: "echo", Name: "Echo", Description: "Echoes", OpenAPI: []byte(`openapi: 3.0.3
info: {title: Echo, version: "1"}
paths:
  /say:
    post:
      operationId: say
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object, required: [text], properties: {text: {type: string}}}
`), Invoke: func(_ context.Context, op string, args map[string]any) (string, error) {
		return fmt.Sprintf("%s: %v", op, args["text"]), nil
	}}}
}
