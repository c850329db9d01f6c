package main

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServerMembersConversations: in a team workspace, a member's
// conversation with a bot is theirs over MCP: another member can neither
// read it as a resource nor continue it through the bot's tool (which
// would show its history to the model), and nothing is added to it; its
// own user continues it.
func TestMCPServerMembersConversations(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			team := str(c.s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Team"}).must(t, 201).data, "id")
			bot := str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": team, "name": "Team Bot",
				"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
			c.s.call(t, "POST", "/api/bots/"+bot+"/publish", bootstrapToken, nil).must(t, 201)
			c.s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "mia@example.com", "name": "Mia", "password": "mia-password-1"}).must(t, 201)
			c.s.call(t, "POST", "/api/workspaces/"+team+"/members", bootstrapToken, map[string]any{"email": "mia@example.com", "role": "member"}).must(t, 201)
			login := str(c.s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "mia@example.com", "password": "mia-password-1"}).must(t, 200).data, "token")
			miaToken := str(c.s.call(t, "POST", "/api/tokens", login, map[string]any{"name": "mcp"}).must(t, 201).data, "token")

			admin, err := c.s.connectMCP(t, bootstrapToken, nil)
			if err != nil {
				t.Fatal(err)
			}
			mia, err := c.s.connectMCP(t, miaToken, nil)
			if err != nil {
				t.Fatal(err)
			}
			conv := str(structured(t, admin.call(t, "chat_team_bot", map[string]any{"message": "my secret plan"}, "")), "conversation_id")
			uri := "pergola://conversations/" + conv + "/messages"
			if _, err := mia.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("another member reading the conversation: %v", err)
			}
			res := mia.call(t, "chat_team_bot", map[string]any{"message": "what was the plan?", "conversation_id": conv}, "")
			if !res.IsError || !strings.Contains(textOf(res), "conversation "+conv+" not found") {
				t.Fatalf("another member continuing the conversation: %v %q", res.IsError, textOf(res))
			}
			again := admin.call(t, "chat_team_bot", map[string]any{"message": "go on", "conversation_id": conv}, "")
			if again.IsError || str(structured(t, again), "conversation_id") != conv {
				t.Fatalf("its own user continuing it: %q", textOf(again))
			}
			var messages struct{ Messages []struct{ Content string } }
			readJSON(t, admin, uri, &messages)
			if len(messages.Messages) != 4 {
				t.Fatalf("the conversation holds %+v, want the owner's two turns only", messages.Messages)
			}
		})
	}
}
