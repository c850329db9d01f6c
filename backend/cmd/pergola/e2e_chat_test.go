package main

import (
	"strings"
	"testing"
	"time"
)

// TestChatThroughTheCozeAPI drives a published bot with variables and a
// client tool through /v3/chat, streamed and polled, on every back end.
func TestChatThroughTheCozeAPI(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			botID := c.bot(t, map[string]any{
				"name": "Helper", "prompt": "You help {{name}}.", "model": map[string]any{"model_id": "fake"},
				"variables":    []map[string]any{{"keyword": "name", "default": "friend", "show_in_prompt": true}},
				"client_tools": []map[string]any{{"name": "get_weather", "description": "weather", "parameters": map[string]any{"type": "object"}}},
			})

			// Streamed: events in the contract's order, deltas adding up.
			events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
				"additional_messages": userMessage("hello world"), "stream": true})
			got := names(events)
			if got[0] != "conversation.chat.created" || got[1] != "conversation.chat.in_progress" ||
				got[len(got)-2] != "conversation.chat.completed" || got[len(got)-1] != "done" {
				t.Fatalf("events = %v", got)
			}
			if events[len(events)-1].data != `"[DONE]"` {
				t.Fatalf("done data = %q", events[len(events)-1].data)
			}
			var text strings.Builder
			for _, e := range events {
				if e.name == "conversation.message.delta" {
					text.WriteString(str(e.obj(t), "content"))
				}
			}
			if text.String() != "echo: hello world" {
				t.Fatalf("streamed %q", text.String())
			}
			done := events[len(events)-2].obj(t)
			usage, _ := done["usage"].(map[string]any)
			if usage == nil || usage["token_count"].(float64) <= 0 || str(done, "conversation_id") == "" {
				t.Fatalf("chat.completed = %v", done)
			}
			sys := c.llm.Requests()[0].Messages[0].Content
			if !strings.Contains(sys, "You help friend.") {
				t.Fatalf("system prompt = %q", sys)
			}
			convID := str(done, "conversation_id")

			// Keyword memory through the model, then read back with /v1/variables.
			s.stream(t, "/v3/chat?conversation_id="+convID, bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call setKeywordMemory {"data":[{"keyword":"name","value":"Ada"}]}`)})
			vars := s.call(t, "GET", "/v1/variables?bot_id="+botID+"&connector_uid=u1&keywords=name", bootstrapToken, nil).must(t, 200)
			if list := items(t, vars.data, "items"); len(list) != 1 || str(list[0], "value") != "Ada" {
				t.Fatalf("variables = %v", vars.data)
			}

			// Non-streamed, then polled until completed; the history is there.
			chat := s.call(t, "POST", "/v3/chat?conversation_id="+convID, bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
				"additional_messages": userMessage("and now?"), "stream": false}).must(t, 200)
			chatID := str(chat.data, "id")
			final := pollChat(t, s, convID, chatID)
			if str(final, "status") != "completed" {
				t.Fatalf("polled chat = %v", final)
			}
			msgs := s.call(t, "GET", "/v3/chat/message/list?conversation_id="+convID+"&chat_id="+chatID, bootstrapToken, nil).must(t, 200)
			list, _ := msgs.raw["data"].([]any)
			var types []string
			for _, m := range list {
				types = append(types, str(m.(map[string]any), "type"))
			}
			answer, _ := list[0].(map[string]any)
			if strings.Join(types, ",") != "answer,verbose" || str(answer, "content") != "echo: and now?" {
				t.Fatalf("chat messages = %v", list)
			}
			last := c.llm.Requests()[len(c.llm.Requests())-1]
			if !strings.Contains(last.Messages[0].Content, "You help Ada.") || len(last.Messages) < 5 {
				t.Fatalf("the third turn lacks the memory or the history: %+v", last.Messages)
			}

			// A client tool: requires_action, then submit_tool_outputs continues the same chat.
			events = s.stream(t, "/v3/chat?conversation_id="+convID, bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call get_weather {"city":"Shenzhen"}`)})
			if got := names(events); got[len(got)-2] != "conversation.chat.requires_action" {
				t.Fatalf("events = %v", got)
			}
			waiting := events[len(events)-2].obj(t)
			ra := waiting["required_action"].(map[string]any)["submit_tool_outputs"].(map[string]any)["tool_calls"].([]any)
			call := ra[0].(map[string]any)
			fn := call["function"].(map[string]any)
			if str(fn, "name") != "get_weather" || str(fn, "arguments") != `{"city":"Shenzhen"}` {
				t.Fatalf("tool call = %v", call)
			}
			waitingID := str(waiting, "id")
			submit := "/v3/chat/submit_tool_outputs?conversation_id=" + convID + "&chat_id=" + waitingID
			after := s.stream(t, submit, bootstrapToken, map[string]any{"stream": true,
				"tool_outputs": []map[string]any{{"tool_call_id": str(call, "id"), "output": "18°C"}}})
			if got := names(after); got[len(got)-2] != "conversation.chat.completed" || str(after[len(after)-2].obj(t), "id") != waitingID {
				t.Fatalf("after submit: %v", got)
			}
			var answerText strings.Builder
			for _, e := range after {
				if e.name == "conversation.message.delta" {
					answerText.WriteString(str(e.obj(t), "content"))
				}
			}
			if answerText.String() != "tool said: 18°C" {
				t.Fatalf("answer after submit = %q", answerText.String())
			}
			s.call(t, "POST", submit, bootstrapToken, map[string]any{"tool_outputs": []map[string]any{{"tool_call_id": str(call, "id"), "output": "x"}}}).
				fails(t, 409, 4300, "not waiting")
		})
	}
}

func pollChat(t *testing.T, s *testServer, convID, chatID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := s.call(t, "GET", "/v3/chat/retrieve?conversation_id="+convID+"&chat_id="+chatID, bootstrapToken, nil).must(t, 200)
		if st := str(r.data, "status"); st != "in_progress" && st != "created" {
			return r.data
		}
		if time.Now().After(deadline) {
			t.Fatalf("chat %s still %s after 20s", chatID, str(r.data, "status"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestChatRefusesBadInput answers each mistake with a 4xx naming it.
func TestChatRefusesBadInput(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	s := c.s
	botID := c.bot(t, map[string]any{"name": "B", "model": map[string]any{"model_id": "fake"}})
	draft := str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Draft only",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	chat := func(body map[string]any) reply { return s.call(t, "POST", "/v3/chat", bootstrapToken, body) }
	chat(map[string]any{"bot_id": "123", "user_id": "u", "additional_messages": userMessage("x")}).fails(t, 404, 4200, "bot 123")
	chat(map[string]any{"bot_id": draft, "user_id": "u", "additional_messages": userMessage("x")}).fails(t, 400, 4000, "not published")
	chat(map[string]any{"bot_id": botID, "additional_messages": userMessage("x")}).fails(t, 400, 4000, "user_id")
	chat(map[string]any{"bot_id": botID, "user_id": "u"}).fails(t, 400, 4000, "additional_messages")
	chat(map[string]any{"bot_id": botID, "user_id": "u", "additional_messages": []map[string]any{{"role": "robot", "content": "x"}}}).
		fails(t, 400, 4000, "additional_messages[0]")
	chat(map[string]any{"bot_id": botID, "user_id": "u", "additional_messages": []map[string]any{{"role": "user", "content": "x", "content_type": "object_string"}}}).
		fails(t, 400, 4000, "additional_messages[0].content")
	chat(map[string]any{"bot_id": botID, "user_id": "u", "additional_messages": userMessage("x"), "stream": true, "auto_save_history": false}).
		fails(t, 400, 4000, "auto_save_history")
	done := chat(map[string]any{"bot_id": botID, "user_id": "u", "additional_messages": userMessage("x")}).must(t, 200)
	convID, chatID := str(done.data, "conversation_id"), str(done.data, "id")
	pollChat(t, s, convID, chatID)
	s.call(t, "POST", "/v3/chat/submit_tool_outputs?conversation_id="+convID+"&chat_id="+chatID, bootstrapToken,
		map[string]any{"tool_outputs": []map[string]any{{"tool_call_id": "c", "output": "x"}}}).fails(t, 409, 4300, "not waiting")
	s.call(t, "POST", "/v3/chat/cancel", bootstrapToken, map[string]any{"conversation_id": convID, "chat_id": chatID}).fails(t, 409, 4300, "already completed")
	s.call(t, "GET", "/v3/chat/retrieve?conversation_id="+convID+"&chat_id=999", bootstrapToken, nil).fails(t, 404, 4200, "chat 999")
}
