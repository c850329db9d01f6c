package main

import (
	"strings"
	"testing"
)

const pickSizeFlow = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "item", "type": "string", "required": true}]},
  {"id": "size", "type": "question", "config": {"question": "Pick a size for your {{i}}", "answer_type": "option", "options": ["S", "M", "L"]},
   "inputs": {"i": {"ref": {"node": "start", "path": "item"}}}},
  {"id": "end", "type": "end", "inputs": {"item": {"ref": {"node": "start", "path": "item"}}, "size": {"ref": {"node": "size", "path": "answer"}}}}],
 "edges": [{"from": "start", "to": "size"}, {"from": "size", "to": "end"}]}`

// TestWorkflowQuestionInAChat: a question node inside a bot's tool
// workflow is the bot's question; the end user's next message answers it,
// the workflow ends, and the agent goes on with its result.
func TestWorkflowQuestionInAChat(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			wf := c.workflow(t, "pick_size", "Orders an item in a size the user picks.", pickSizeFlow, true)
			botID := c.bot(t, map[string]any{"name": "Shop", "model": map[string]any{"model_id": "fake"},
				"workflows": []map[string]any{{"workflow_id": wf}}})
			turn := func(conv, text string) (string, string) {
				path := "/v3/chat"
				if conv != "" {
					path += "?conversation_id=" + conv
				}
				events := c.s.stream(t, path, bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u", "stream": true,
					"additional_messages": userMessage(text)})
				deltas, _ := chatParts(t, events)
				done := events[len(events)-2].obj(t)
				if str(done, "status") != "completed" {
					t.Fatalf("turn %q ended %v", text, done)
				}
				return str(done, "conversation_id"), joined(deltas)
			}

			conv, asked := turn("", `#call pick_size {"item":"shirt"}`)
			if !strings.Contains(asked, "Pick a size for your shirt") || !strings.Contains(asked, "2. M") {
				t.Fatalf("the question = %q", asked)
			}
			_, wrong := turn(conv, "purple")
			if !strings.Contains(wrong, "option") {
				t.Fatalf("a wrong answer got %q", wrong)
			}
			// The model goes on from its call of the tool, answered with the
			// workflow's result and the end user's answer to its question
			// (the fake refuses any other order with 400, as OpenAI does).
			_, answer := turn(conv, "2")
			want := `tool said: {"asked_user":[{"question":"Pick a size for your shirt\n1. S\n2. M\n3. L","answer":"2"}],` +
				`"result":{"item":"shirt","size":"M"}}`
			if answer != want {
				t.Fatalf("after the answer the bot said %q, want %q", answer, want)
			}
			_, next := turn(conv, "thanks")
			if next != "echo: thanks" {
				t.Fatalf("after the round the bot said %q", next)
			}
		})
	}
}
