package main

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestMCPServerLiveSessions runs what open sessions live through, on one
// server per back end (two processes on MariaDB+Redis, sharing them):
// lists that change under them, calls they cancel and, on MariaDB+Redis,
// requests, streams and cancellations that land on the process that did
// not open them. The model thinks for 30 seconds: the calls that reach
// it are cancelled.
func TestMCPServerLiveSessions(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			llm := fakellm.New(fakellm.WithFirstTokenLatency(30 * time.Second))
			llmURL, err := llm.Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = llm.Close() })
			env := b.env(t)
			a := startServer(t, env)
			other := a
			if b.name != "sqlite" {
				other = startServer(t, maps.Clone(env))
			}
			a.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai",
				"base_url": llmURL, "api_key": "k", "model": "fake"}).must(t, 201)
			ws := a.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200)
			c := &chatSetup{s: a, llm: llm, ws: str(items(t, ws.data, "workspaces")[0], "id")}
			mcpListChanged(t, c, other)
			poem := mcpCancel(t, c)
			if other != a {
				mcpStreamElsewhere(t, c, other)
				mcpCancelElsewhere(t, c, other, poem)
				mcpAskElsewhere(t, c, other)
				c.workflow(t, "Weather", "", weatherWorkflow, true)
				mcpAcrossProcesses(t, a, other)
			}
		})
	}
}

// mcpListChanged: publishing a bot tells an open session that its tools,
// resources and prompts changed, and deleting it tells it again; a
// session of a token that does not reach the bot's workspace is told
// nothing. The changes are made on other, so on MariaDB+Redis the
// notification crosses processes on the invalidation bus.
func mcpListChanged(t *testing.T, c *chatSetup, other *testServer) {
	t.Helper()
	a, ws := c.s, c.ws
	elsewhere := str(a.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Elsewhere"}).must(t, 201).data, "id")
	outsiderToken := str(a.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "elsewhere",
		"workspace_ids": []string{elsewhere}}).must(t, 201).data, "token")
	cl, err := a.connectMCP(t, bootstrapToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	outsider, err := a.connectMCP(t, outsiderToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*mcpClient{cl, outsider} {
		m.tools(t)
		if _, err := m.session.ListPrompts(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	bot := str(other.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Newcomer",
		"prompt": "Be brief.", "model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	other.call(t, "POST", "/api/bots/"+bot+"/publish", bootstrapToken, nil).must(t, 201)
	for _, list := range []string{"tools", "resources", "prompts"} {
		if got := cl.waitChanged(list, 1); got != 1 {
			t.Fatalf("after publishing: %d %s/list_changed, want 1", got, list)
		}
	}
	if names := keys(cl.tools(t)); len(names) != 1 || names[0] != "chat_newcomer" {
		t.Fatalf("tools after the notification: %v", names)
	}
	other.call(t, "DELETE", "/api/bots/"+bot, bootstrapToken, nil).must(t, 200)
	if got := cl.waitChanged("tools", 2); got != 2 {
		t.Fatalf("after deleting: %d tools/list_changed in all, want 2", got)
	}
	if got := outsider.waitChanged("tools", 0); got != 0 {
		t.Fatalf("a session that does not reach the workspace got %d tools/list_changed", got)
	}
}
