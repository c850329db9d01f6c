package main

import (
	"strings"
	"testing"
)

// Workflows whose conversation nodes run without an app (Coze's agent
// scenario): "Default" is the conversation the run is a turn of.
const (
	// recallFlow notes an answer in the Default conversation, then lists
	// its messages.
	recallFlow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string"}]},
	  {"id": "note", "type": "conversation", "config": {"op": "message_create"},
	   "inputs": {"conversationName": {"value": "Default"}, "role": {"value": "assistant"}, "content": {"value": "noted"}}},
	  {"id": "list", "type": "conversation", "config": {"op": "message_list"}, "inputs": {"conversationName": {"value": "Default"}}},
	  {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{l}}"}, "inputs": {"l": {"ref": {"node": "list", "path": "messageList"}}}}],
	 "edges": [{"from": "start", "to": "note"}, {"from": "note", "to": "list"}, {"from": "list", "to": "end"}]}`
	// toolRecallFlow lists the Default conversation's messages, as a bot's
	// tool.
	toolRecallFlow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": []},
	  {"id": "list", "type": "conversation", "config": {"op": "message_list"}, "inputs": {"conversationName": {"value": "Default"}}},
	  {"id": "end", "type": "end", "inputs": {"n": {"ref": {"node": "list", "path": "messageList"}}}}],
	 "edges": [{"from": "start", "to": "list"}, {"from": "list", "to": "end"}]}`
)

// refusedFlow runs one conversation node with inputs.
func refusedFlow(op, inputs string) string {
	return `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string"}]},
	  {"id": "conv", "type": "conversation", "config": {"op": "` + op + `"}, "inputs": ` + inputs + `},
	  {"id": "end", "type": "end", "config": {"mode": "text", "template": "done"}}],
	 "edges": [{"from": "start", "to": "conv"}, {"from": "conv", "to": "end"}]}`
}

// botTurn posts one message of a chatflow run for a bot.
func (c *chatSetup) botTurn(t *testing.T, workflowID, botID, convID, text string) ([]sseEvent, string) {
	t.Helper()
	body := map[string]any{"workflow_id": workflowID, "bot_id": botID, "additional_messages": userMessage(text)}
	if convID != "" {
		body["conversation_id"] = convID
	}
	events := c.s.stream(t, "/v1/workflows/chat", bootstrapToken, body)
	return events, str(events[0].obj(t), "conversation_id")
}

// TestChatflowAgentDefaultConversation: a chatflow run for a bot, without
// an app, reaches its own conversation as "Default" through message
// nodes; other names and the conversation operations fail, as in Coze
// Studio. A bot's workflow tool reaches the bot's chat the same way.
func TestChatflowAgentDefaultConversation(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.workflow(t, "recall", "recalls the chat", recallFlow, true)
			botID := c.bot(t, map[string]any{"name": "Keeper", "model": map[string]any{"model_id": "fake"}})

			events, conv := c.botTurn(t, id, botID, "", "hello")
			_, done := chatParts(t, events)
			if got := completedOfType(done, "answer"); len(got) != 1 || !strings.HasPrefix(got[0], `[{"content":"noted"`) ||
				!strings.Contains(got[0], `"content":"hello","contentType":"text"`) {
				t.Fatalf("first turn = %q (%v)", got, names(events))
			}
			events, _ = c.botTurn(t, id, botID, conv, "second")
			_, done = chatParts(t, events)
			if got := completedOfType(done, "answer"); len(got) != 1 || strings.Count(got[0], `"content":"noted"`) != 2 ||
				!strings.Contains(got[0], `"content":"second"`) || !strings.Contains(got[0], `"content":"hello"`) {
				t.Fatalf("second turn = %q", got)
			}
			wantHistory(t, c, conv, "user:hello|assistant:noted|assistant:list|user:second|assistant:noted|assistant:list")

			for op, want := range map[string]string{
				`message_list {"conversationName": {"value": "Support"}}`: `only the "Default" conversation`,
				`history {"conversationName": {"value": "Default"}}`:      "op history is not available in a run without an app",
			} {
				op, inputs, _ := strings.Cut(op, " ")
				refused := c.workflow(t, "refused_"+op, "", refusedFlow(op, inputs), true)
				events, _ := c.botTurn(t, refused, botID, "", "hi")
				failed := events[len(events)-2]
				if failed.name != "conversation.chat.failed" {
					t.Fatalf("%s: events = %v", op, names(events))
				}
				hist := c.s.runHistory(t, refused, str(failed.obj(t), "execute_id"))
				if !strings.Contains(str(hist, "error_message"), want) {
					t.Fatalf("%s: error = %q, want %q", op, str(hist, "error_message"), want)
				}
			}

			tool := c.workflow(t, "recall_chat", "lists the chat", toolRecallFlow, true)
			toolBot := c.bot(t, map[string]any{"name": "Toolkeeper", "model": map[string]any{"model_id": "fake"},
				"workflows": []map[string]any{{"workflow_id": tool}}})
			events = c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": toolBot, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call recall_chat {}`)})
			if deltas, _ := chatParts(t, events); !strings.Contains(joined(deltas), `"content":"#call recall_chat {}"`) {
				t.Fatalf("the tool's list = %q", joined(deltas))
			}
		})
	}
}
