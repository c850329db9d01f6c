package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPPluginEndToEnd adds MCP servers started here (streamable HTTP
// and SSE, with a bearer token) as plugins: their tools are discovered,
// run in a debug run, refreshed on demand, and called by a bot through
// /v3/chat, on SQLite and on MariaDB.
func TestMCPPluginEndToEnd(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			for _, transport := range []string{"streamable", "sse"} {
				t.Run(transport, func(t *testing.T) { mcpPluginRound(t, c, transport) })
			}
		})
	}
}

func mcpPluginRound(t *testing.T, c *chatSetup, transport string) {
	s := c.s
	srv := newMCPServer(t, transport, "mcp-token-"+transport)
	created := s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{
		"workspace_id": c.ws, "kind": "mcp", "name": "Math " + transport, "server_url": srv.URL, "transport": transport,
		"auth": map[string]any{"type": "bearer", "token": "mcp-token-" + transport},
	}).must(t, 201).data
	id := str(created, "id")
	tools := items(t, created, "tools")
	if len(tools) != 1 || str(tools[0], "name") != "math_add" || str(tools[0], "operation_id") != "math.add" || str(created, "kind") != "mcp" {
		t.Fatalf("created = %v", created)
	}
	got := s.call(t, "GET", "/api/plugins/"+id, bootstrapToken, nil).must(t, 200)
	raw, _ := json.Marshal(got.raw)
	if got.data["auth"].(map[string]any)["has_secret"] != true || strings.Contains(string(raw), "mcp-token-") {
		t.Fatalf("plugin = %s", raw)
	}

	run := s.call(t, "POST", "/api/plugins/"+id+"/tools/math_add/debug", bootstrapToken, map[string]any{"args": `{"a":2,"b":3}`}).must(t, 200).data
	req := run["request"].(map[string]any)
	if run["ok"] != true || str(run, "result") != "sum=5" || str(req, "method") != "tools/call" ||
		req["headers"].(map[string]any)["Authorization"] != "Bearer ****" {
		t.Fatalf("debug run = %v", run)
	}

	srv.grow()
	refreshed := s.call(t, "POST", "/api/plugins/"+id+"/refresh", bootstrapToken, nil).must(t, 200).data
	if n := len(items(t, refreshed, "tools")); n != 2 {
		t.Fatalf("after refresh %d tools: %v", n, refreshed)
	}
	s.call(t, "POST", "/api/plugins/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	botID := c.bot(t, map[string]any{"name": "Mathematician " + transport, "model": map[string]any{"model_id": "fake"},
		"plugins": []map[string]any{{"plugin_id": id, "tool": "math_add"}, {"plugin_id": id, "tool": "shout"}}})
	events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": userMessage(`#call math_add {"a":20,"b":22}`)})
	if got := answerOf(t, events); got != "tool said: sum=42" {
		t.Fatalf("answer = %q (events %v)", got, names(events))
	}
	events = s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": userMessage(`#call shout {"text":"hello"}`)})
	if got := answerOf(t, events); got != "tool said: HELLO" {
		t.Fatalf("answer = %q", got)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, a := range srv.auths {
		if a != "Bearer mcp-token-"+transport {
			t.Fatalf("the MCP server saw Authorization %q", a)
		}
	}
}
