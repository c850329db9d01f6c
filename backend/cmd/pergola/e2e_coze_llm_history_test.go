package main

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// historyChatflow answers through an llm node that gets the last round of
// the conversation.
const historyChatflow = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string", "required": true}]},
  {"id": "ask", "type": "llm", "config": {"model_id": "fake", "system": "Be brief.", "prompt": "{{q}}", "chat_history_rounds": 1},
   "inputs": {"q": {"ref": {"node": "start", "path": "USER_INPUT"}}}},
  {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{a}}"}, "inputs": {"a": {"ref": {"node": "ask", "path": "output"}}}}],
 "edges": [{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}]}`

// TestChatflowLLMChatHistory: an llm node with chat_history_rounds gets,
// in a /v1/workflows/chat turn, the conversation's last rounds between its
// system prompt and its prompt, as Coze's chat history does; the turn's own
// question is not history, the rounds limit holds, and a run that is no
// conversation's turn gets none. On SQLite and on MariaDB with Redis.
func TestChatflowLLMChatHistory(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.workflow(t, "history_flow", "remembers", historyChatflow, true)
			turn := func(conv, text string) (string, []string) {
				c.llm.Reset()
				body := map[string]any{"workflow_id": id, "additional_messages": userMessage(text)}
				if conv != "" {
					body["conversation_id"] = conv
				}
				events := c.s.stream(t, "/v1/workflows/chat", bootstrapToken, body)
				done := events[len(events)-2].obj(t)
				if str(done, "status") != "completed" {
					t.Fatalf("turn %q: %v", text, names(events))
				}
				return str(done, "conversation_id"), sentMessages(t, c.llm)
			}
			conv, sent := turn("", "my name is Ada")
			if got := strings.Join(sent, "|"); got != "system:Be brief.|user:my name is Ada" {
				t.Fatalf("first turn sent %q, want no history", got)
			}
			_, sent = turn(conv, "what is my name?")
			want := "system:Be brief.|user:my name is Ada|assistant:echo: my name is Ada|user:what is my name?"
			if got := strings.Join(sent, "|"); got != want {
				t.Fatalf("second turn sent %q, want %q", got, want)
			}
			_, sent = turn(conv, "and now?") // one round: only the last question and its answer
			want = "system:Be brief.|user:what is my name?|assistant:echo: what is my name?|user:and now?"
			if got := strings.Join(sent, "|"); got != want {
				t.Fatalf("third turn sent %q, want %q", got, want)
			}
			c.llm.Reset()
			c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
				"parameters": map[string]any{"USER_INPUT": "alone"}}).must(t, 200)
			if got := strings.Join(sentMessages(t, c.llm), "|"); got != "system:Be brief.|user:alone" {
				t.Fatalf("a run outside a conversation sent %q", got)
			}
		})
	}
}

// sentMessages are role:content of the one request the fake model got.
func sentMessages(t *testing.T, llm *fakellm.Server) []string {
	t.Helper()
	reqs := llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	var out []string
	for _, m := range reqs[0].Messages {
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}
