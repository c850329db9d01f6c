package main

import (
	"strings"
	"testing"
)

// TestSubAgents: a planner bot with sub-agents answers through /v3/chat,
// streamed, with the sub-agents' tool calls in its stream under their own
// bot_id, and through /v1/chat/completions; usage counts each bot's
// chats; a cycle is refused when saved; a sub-agent that calls one deeper
// than PERGOLA_SUBAGENT_DEPTH is told so; a sub-agent's workflow question
// reaches the end user and their answer resumes it. On SQLite and on MariaDB with
// Redis.
func TestSubAgents(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_SUBAGENT_DEPTH": "1"}))
			model := map[string]any{"model_id": "fake"}
			researcher := c.bot(t, map[string]any{"name": "Researcher", "prompt": "You find facts.", "model": model,
				"variables": []map[string]any{{"keyword": "city"}}})
			writer := c.bot(t, map[string]any{"name": "Writer", "prompt": "You write.", "model": model})
			middle := c.bot(t, map[string]any{"name": "Middle", "prompt": "You pass work on.", "model": model,
				"sub_agents": []map[string]any{{"bot_id": writer, "description": "writes text"}}})
			wf := c.workflow(t, "pick_size", "Orders an item in a size the user picks.", pickSizeFlow, true)
			shop := c.bot(t, map[string]any{"name": "Shop", "model": model, "workflows": []map[string]any{{"workflow_id": wf}}})
			planner := c.bot(t, map[string]any{"name": "Planner", "prompt": "You delegate.", "model": model,
				"sub_agents": []map[string]any{{"bot_id": researcher, "description": "finds facts"},
					{"bot_id": writer, "description": "writes text"}, {"bot_id": middle, "description": "passes work on"},
					{"bot_id": shop, "description": "orders things"}}})

			ask := `#call researcher {"task":"#call setKeywordMemory {\"data\":[{\"keyword\":\"city\",\"value\":\"Paris\"}]}"} ` +
				`#call writer {"task":"a haiku"}`
			want := "tool said: tool said: saved: city; echo: a haiku"
			subAgentsStream(t, c, planner, researcher, ask, want)
			oa := c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": planner,
				"messages": []map[string]any{{"role": "user", "content": ask}}}).must(t, 200)
			msg := oa.raw["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
			if msg["content"] != want {
				t.Errorf("/v1/chat/completions answered %v, want %q", msg["content"], want)
			}

			rows := map[string]float64{}
			for _, it := range usageItems(t, c.s, "/api/usage?group_by=bot&workspace_id="+c.ws, bootstrapToken) {
				rows[str(it, "bot_id")] = it["chats"].(float64)
			}
			if rows[planner] != 2 || rows[researcher] != 2 || rows[writer] != 2 {
				t.Errorf("usage chats by bot = %v; want 2 each for planner %s, researcher %s, writer %s", rows, planner, researcher, writer)
			}

			c.s.call(t, "POST", "/v1/bot/update", bootstrapToken, map[string]any{"bot_id": researcher,
				"sub_agents": []map[string]any{{"bot_id": planner, "description": "plans"}}}).
				fails(t, 400, 4000, "sub-agents form a cycle: bot "+researcher+" → bot "+planner+" → bot "+researcher)

			subAgentsQuestion(t, c, planner)

			deep := `#call middle {"task":"#call writer {\"task\":\"deep\"}"}`
			subAgentsStream(t, c, planner, middle, deep, "tool said: tool said: error: sub-agents may call sub-agents only 1 deep; answer without Writer")
		})
	}
}

// subAgentsQuestion: the Shop sub-agent's workflow asks the end user a
// question, which is the planner's answer; the end user's next message in
// the planner's conversation answers the workflow, and the planner goes on
// with Shop's answer.
func subAgentsQuestion(t *testing.T, c *chatSetup, planner string) {
	t.Helper()
	turn := func(conv, text string) (string, string) {
		path := "/v3/chat"
		if conv != "" {
			path += "?conversation_id=" + conv
		}
		events := c.s.stream(t, path, bootstrapToken, map[string]any{"bot_id": planner, "user_id": "u1", "stream": true,
			"additional_messages": userMessage(text)})
		deltas, _ := chatParts(t, events)
		done := events[len(events)-2].obj(t)
		if str(done, "status") != "completed" {
			t.Fatalf("turn %q ended %v", text, done)
		}
		return str(done, "conversation_id"), joined(deltas)
	}
	conv, asked := turn("", `#call shop {"task":"#call pick_size {\"item\":\"shirt\"}"}`)
	if !strings.Contains(asked, "Pick a size for your shirt") {
		t.Fatalf("the planner asked %q, want Shop's question", asked)
	}
	_, answer := turn(conv, "2")
	if !strings.HasPrefix(answer, "tool said: ") || !strings.Contains(answer, `\"size\":\"M\"`) {
		t.Fatalf("after the answer the planner said %q", answer)
	}
}

// subAgentsStream asks bot over /v3/chat, streamed, and checks its answer
// and that a function_call of sub (a sub-agent) streamed with sub's bot_id.
func subAgentsStream(t *testing.T, c *chatSetup, bot, sub, text, want string) {
	t.Helper()
	events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": bot, "user_id": "u1",
		"additional_messages": userMessage(text), "stream": true})
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("the stream ended with %v", got[len(got)-2:])
	}
	var subCall bool
	answer := ""
	for _, e := range events {
		if e.name != "conversation.message.completed" {
			continue
		}
		m := e.obj(t)
		switch {
		case str(m, "bot_id") == sub && str(m, "type") == "function_call":
			subCall = true
		case str(m, "bot_id") == bot && str(m, "type") == "answer":
			answer = str(m, "content")
		}
	}
	if !subCall {
		t.Errorf("no function_call of sub-agent %s in the stream of bot %s", sub, bot)
	}
	if answer != want {
		t.Errorf("answer %q, want %q", answer, want)
	}
	if strings.Contains(answer, "error") && !strings.Contains(want, "error") {
		t.Errorf("unexpected error answer %q", answer)
	}
}
