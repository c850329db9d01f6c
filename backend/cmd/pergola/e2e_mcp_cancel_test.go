package main

import (
	"context"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCancel: a client that cancels a tool call (notifications/cancelled)
// cancels what the call runs: the bot's chat turn ends canceled, the
// workflow run ends cancelled, while the model is still thinking. It
// returns the workflow's id.
func mcpCancel(t *testing.T, c *chatSetup) string {
	t.Helper()
	c.bot(t, map[string]any{"name": "Slow", "model": map[string]any{"model_id": "fake"}})
	poem := c.workflow(t, "Poem", "", poemWorkflow, true)
	cl, err := c.s.connectMCP(t, bootstrapToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	started := cancelledCall(t, cl, "chat_slow", map[string]any{"message": "take your time"}, "slow-chat")
	ids := regexp.MustCompile(`chat (\d+) of conversation (\d+)`).FindStringSubmatch(started)
	if ids == nil {
		t.Fatalf("chat progress %q names no chat", started)
	}
	waitFor(t, "the chat to end canceled", func() bool {
		r := c.s.call(t, "GET", "/v3/chat/retrieve?conversation_id="+ids[2]+"&chat_id="+ids[1], bootstrapToken, nil).must(t, 200)
		return str(r.data, "status") == "canceled"
	})
	cancelledCall(t, cl, "wf_poem", map[string]any{"topic": "patience"}, "slow-wf")
	waitFor(t, "the run to end cancelled", func() bool {
		runs := items(t, c.s.call(t, "GET", "/api/workflows/"+poem+"/runs", bootstrapToken, nil).must(t, 200).data, "items")
		return len(runs) == 1 && str(runs[0], "status") == "cancelled"
	})
	return poem
}

// cancelledCall calls a tool, cancels the call once its first progress
// notification came, and returns that notification's message.
func cancelledCall(t *testing.T, cl *mcpClient, name string, args map[string]any, token string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		params.SetProgressToken(token)
		_, err := cl.session.CallTool(ctx, params)
		done <- err
	}()
	p := cl.progressOf(token, 1)
	cancel()
	if len(p) == 0 {
		t.Fatalf("%s: no progress before cancelling", name)
	}
	if err := <-done; err == nil {
		t.Fatalf("%s: the cancelled call answered", name)
	}
	return p[0]
}
