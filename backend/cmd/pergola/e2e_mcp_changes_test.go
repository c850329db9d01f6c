package main

import (
	"context"
	"maps"
	"testing"
)

// TestMCPServerListChanged: publishing a bot tells an open session that
// its tools, resources and prompts changed, and deleting it tells it
// again; a session of a token that does not reach the bot's workspace is
// told nothing. On MariaDB+Redis the changes are made on a second
// process, so the notification crosses processes on the invalidation bus.
func TestMCPServerListChanged(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			a := startServer(t, env)
			other := a
			if b.name != "sqlite" {
				other = startServer(t, maps.Clone(env))
			}
			a.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai",
				"base_url": "http://127.0.0.1:9", "api_key": "k", "model": "fake"}).must(t, 201)
			ws := str(items(t, a.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
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
			for _, c := range []*mcpClient{cl, outsider} {
				c.tools(t)
				if _, err := c.session.ListPrompts(context.Background(), nil); err != nil {
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
		})
	}
}
