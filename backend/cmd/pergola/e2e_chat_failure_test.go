package main

import (
	"strings"
	"testing"
)

// TestChatFailureShowsAShortMessage: when the model cannot be reached, the
// end user reads the short apology on every chat surface, never an
// internal id (log id, chat id), the provider's address or eino's node
// wrapping.
func TestChatFailureShowsAShortMessage(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			botID := c.bot(t, map[string]any{"name": "Down", "model": map[string]any{"model_id": "fake"}})
			addr := strings.TrimSuffix(strings.TrimPrefix(c.llm.BaseURL(), "http://"), "/v1")
			_ = c.llm.Close()
			check := func(where, msg string) {
				t.Helper()
				if msg != "The model is unavailable right now; please try again." ||
					strings.Contains(msg, addr) || strings.Contains(msg, "NodeRunError") || strings.Contains(msg, "node path") {
					t.Errorf("%s: the end user reads %q", where, msg)
				}
			}

			events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u", "stream": true,
				"additional_messages": userMessage("hello")})
			failed := events[len(events)-2]
			if failed.name != "conversation.chat.failed" {
				t.Fatalf("the stream ended with %s", failed.name)
			}
			check("streamed chat.failed", str(failed.obj(t)["last_error"].(map[string]any), "msg"))

			started := c.s.call(t, "POST", "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u",
				"additional_messages": userMessage("hello")}).must(t, 200)
			done := pollChat(t, c.s, str(started.data, "conversation_id"), str(started.data, "id"))
			check("retrieved chat", str(done["last_error"].(map[string]any), "msg"))

			oa := c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID,
				"messages": []map[string]any{{"role": "user", "content": "hello"}}})
			if oa.status != 502 {
				t.Fatalf("/v1/chat/completions: status %d %v", oa.status, oa.raw)
			}
			check("/v1/chat/completions", str(oa.raw["error"].(map[string]any), "message"))
		})
	}
}

// TestChatflowFailureShowsAShortMessage: a chatflow whose model node
// cannot reach the model ends with chat.failed carrying the short message,
// while the run history keeps the node's detail for the builder.
func TestChatflowFailureShowsAShortMessage(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	id := c.workflow(t, "echo_flow", "echoes", echoChatflow, true)
	addr := strings.TrimSuffix(strings.TrimPrefix(c.llm.BaseURL(), "http://"), "/v1")
	_ = c.llm.Close()
	events := c.s.stream(t, "/v1/workflows/chat", bootstrapToken, map[string]any{"workflow_id": id,
		"additional_messages": userMessage("hi"), "parameters": map[string]any{"who": "Ada"}})
	failed := events[len(events)-2]
	if failed.name != "conversation.chat.failed" {
		t.Fatalf("the stream ended with %v", names(events))
	}
	obj := failed.obj(t)
	msg := str(obj["last_error"].(map[string]any), "msg")
	if msg != "The model is unavailable right now; please try again." ||
		strings.Contains(msg, addr) || strings.Contains(msg, "NodeRunError") || strings.Contains(msg, "node path") {
		t.Fatalf("the end user reads %q", msg)
	}
	hist := c.s.runHistory(t, id, str(obj, "id"))
	if str(hist, "execute_status") != "Fail" || !strings.Contains(str(hist, "error_message"), addr) {
		t.Fatalf("the run history should keep the detail for the builder: %v", hist)
	}
}
