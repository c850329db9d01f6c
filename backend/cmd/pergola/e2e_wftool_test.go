package main

import (
	"strings"
	"testing"
)

// TestWorkflowsAsBotTools binds two workflows to a bot and chats through
// /v3/chat: a workflow returning variables answers the model with their
// JSON; one returning text answers for the bot, streamed in pieces, after
// the intermediate message of its message node, and the model is called
// once. On SQLite and on MariaDB with Redis.
func TestWorkflowsAsBotTools(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			weather := c.workflow(t, "weather_report", "tells the weather of a city", weatherWorkflow, true)
			poem := c.workflow(t, "write_poem", "writes a poem", poemWorkflow, true)
			botID := c.bot(t, map[string]any{"name": "Poet", "prompt": "You help.", "model": map[string]any{"model_id": "fake"},
				"workflows": []map[string]any{{"workflow_id": weather}, {"workflow_id": poem}}})
			got := s.call(t, "GET", "/api/bots/"+botID+"/versions/1", bootstrapToken, nil).must(t, 200)
			if wfs := items(t, got.data["config"].(map[string]any), "workflows"); len(wfs) != 2 || str(wfs[0], "version") != "1" {
				t.Fatalf("published workflows = %v, want pinned to version 1", wfs)
			}

			// Return variables: the model reads the JSON and answers.
			events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call weather_report {"city":"Paris"}`)})
			deltas, done := chatParts(t, events)
			if want := `tool said: {"city":"Paris","temp":21}`; joined(deltas) != want {
				t.Fatalf("answer = %q, want %q (events %v)", joined(deltas), want, names(events))
			}
			offered := map[string]string{}
			for _, tl := range c.llm.Requests()[0].Tools {
				offered[tl.Function.Name] = tl.Function.Description + " " + string(tl.Function.Parameters)
			}
			if w := offered["weather_report"]; len(offered) != 2 || offered["write_poem"] == "" ||
				!strings.HasPrefix(w, "tells the weather of a city {") || !strings.Contains(w, `"city"`) {
				t.Fatalf("tools offered = %v", offered)
			}
			if fc := completedOfType(done, "function_call"); len(fc) != 1 {
				t.Fatalf("function calls = %v", fc)
			}

			// Return text: streamed as the bot's answer, after the message
			// node's intermediate message; the model is called once.
			before := c.toolRequests()
			events = s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call write_poem {"topic":"rain"}`)})
			deltas, done = chatParts(t, events)
			if want := "Poem: echo: Poem on rain"; joined(deltas) != want || len(deltas) < 3 {
				t.Fatalf("answer = %q in %d deltas, want %q in several", joined(deltas), len(deltas), want)
			}
			if n := c.toolRequests() - before; n != 1 {
				t.Fatalf("the bot's model was called %d times; the workflow's text should end the turn", n)
			}
			answers := completedOfType(done, "answer")
			if len(answers) != 2 || answers[0] != "Thinking about rain" || answers[1] != "Poem: echo: Poem on rain" {
				t.Fatalf("completed answers = %q, want the message node's, then the poem", answers)
			}
			if first := firstIndex(events, "conversation.message.delta"); first < completedIndex(t, events, "Thinking about rain") {
				t.Fatalf("the intermediate message came after the answer began: %v", names(events))
			}
			if last := events[len(events)-2]; last.name != "conversation.chat.completed" {
				t.Fatalf("events = %v", names(events))
			}
		})
	}
}

// TestWorkflowBindingRules: a bot may bind only workflows of its
// workspace, and is published only with published workflows.
func TestWorkflowBindingRules(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	s := c.s
	draft := c.workflow(t, "draft_only", "", weatherWorkflow, false)
	created := s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "B",
		"model": map[string]any{"model_id": "fake"}, "workflows": []map[string]any{{"workflow_id": draft}}}).must(t, 201)
	s.call(t, "POST", "/api/bots/"+str(created.data, "id")+"/publish", bootstrapToken, nil).
		fails(t, 400, 4000, "workflows[0].workflow_id")
	s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "C",
		"workflows": []map[string]any{{"workflow_id": "987654321"}}}).fails(t, 400, 4000, "workflows[0].workflow_id")
}

func firstIndex(events []sseEvent, name string) int {
	for i, e := range events {
		if e.name == name {
			return i
		}
	}
	return -1
}

func completedIndex(t *testing.T, events []sseEvent, content string) int {
	t.Helper()
	for i, e := range events {
		if e.name == "conversation.message.completed" && str(e.obj(t), "content") == content {
			return i
		}
	}
	t.Fatalf("no completed message %q in %v", content, names(events))
	return -1
}
