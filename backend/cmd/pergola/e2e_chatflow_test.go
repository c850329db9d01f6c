package main

import (
	"strings"
	"testing"
)

// echoChatflow answers the user's message through an llm node (the fake
// model echoes it), after a message node greets.
const echoChatflow = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string", "required": true}, {"name": "who", "type": "string"}]},
  {"id": "hello", "type": "message", "config": {"template": "Hello {{w}}"}, "inputs": {"w": {"ref": {"node": "start", "path": "who"}}}},
  {"id": "ask", "type": "llm", "config": {"model_id": "fake", "prompt": "{{q}}"}, "inputs": {"q": {"ref": {"node": "start", "path": "USER_INPUT"}}}},
  {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{a}}"}, "inputs": {"a": {"ref": {"node": "ask", "path": "output"}}}}],
 "edges": [{"from": "start", "to": "hello"}, {"from": "hello", "to": "ask"}, {"from": "ask", "to": "end"}]}`

// TestChatflowThroughTheCozeAPI runs a workflow as two turns of one
// conversation through /v1/workflows/chat: chat events in Coze's order,
// the answer streamed, done as {"debug_url":""}, and the conversation
// keeping both turns. On SQLite and on MariaDB with Redis.
func TestChatflowThroughTheCozeAPI(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			id := c.workflow(t, "echo_flow", "echoes", echoChatflow, true)

			events := s.stream(t, "/v1/workflows/chat", bootstrapToken, map[string]any{"workflow_id": id,
				"additional_messages": userMessage("hi there"), "parameters": map[string]any{"who": "Ada"}})
			got := names(events)
			if len(got) < 6 || got[0] != "conversation.chat.created" || got[1] != "conversation.chat.in_progress" ||
				got[len(got)-2] != "conversation.chat.completed" || got[len(got)-1] != "done" {
				t.Fatalf("events = %v", got)
			}
			if d := events[len(events)-1].data; d != `{"debug_url":""}` {
				t.Fatalf("done data = %s", d)
			}
			deltas, done := chatParts(t, events)
			if answers := completedOfType(done, "answer"); strings.Join(answers, "|") != "Hello Ada|echo: hi there" {
				t.Fatalf("completed = %q", answers)
			}
			if joined(deltas) != "Hello Adaecho: hi there" || len(deltas) < 3 {
				t.Fatalf("deltas = %q", deltas)
			}
			completed := events[len(events)-2].obj(t)
			convID, chatID := str(completed, "conversation_id"), str(completed, "id")
			if _, ok := completed["usage"].(map[string]any); !ok || convID == "" || chatID == "" {
				t.Fatalf("chat.completed = %v", completed)
			}
			if hist := s.runHistory(t, id, chatID); str(hist, "execute_status") != "Success" {
				t.Fatalf("the chat's run = %v", hist)
			}

			// The second turn continues the conversation.
			events = s.stream(t, "/v1/workflows/chat", bootstrapToken, map[string]any{"workflow_id": id, "conversation_id": convID,
				"additional_messages": userMessage("again"), "parameters": `{"who":"Bo"}`})
			if last := events[len(events)-2].obj(t); str(last, "conversation_id") != convID || str(last, "status") != "completed" {
				t.Fatalf("second turn = %v", names(events))
			}
			list := s.call(t, "POST", "/v1/conversation/message/list?conversation_id="+convID, bootstrapToken,
				map[string]any{"order": "asc", "limit": 50}).must(t, 200)
			msgs, _ := list.raw["data"].([]any)
			var history []string
			for _, m := range msgs {
				mm := m.(map[string]any)
				history = append(history, str(mm, "role")+":"+str(mm, "content"))
			}
			want := "user:hi there|assistant:Hello Ada|assistant:echo: hi there|user:again|assistant:Hello Bo|assistant:echo: again"
			if strings.Join(history, "|") != want {
				t.Fatalf("history = %q, want %q", history, want)
			}

			// Errors before the run are JSON.
			s.call(t, "POST", "/v1/workflows/chat", bootstrapToken, map[string]any{"workflow_id": id,
				"additional_messages": nil}).fails(t, 400, 4000, "additional_messages")
		})
	}
}
