package main

import (
	"strings"
	"testing"
)

// TestOpenAICompatibleEndpoint drives a bot with a variable and a client
// tool through /v1/chat/completions, as any OpenAI client would.
func TestOpenAICompatibleEndpoint(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			botID := c.bot(t, map[string]any{"name": "OA", "prompt": "You help {{name}}.", "model": map[string]any{"model_id": "fake"},
				"variables":    []map[string]any{{"keyword": "name", "default": "friend", "show_in_prompt": true}},
				"client_tools": []map[string]any{{"name": "lookup", "description": "look something up", "parameters": map[string]any{"type": "object"}}},
			})
			complete := func(body map[string]any) reply {
				body["model"] = botID
				return s.call(t, "POST", "/v1/chat/completions", bootstrapToken, body)
			}
			choice := func(r reply) map[string]any {
				t.Helper()
				if r.status != 200 {
					t.Fatalf("status %d: %v", r.status, r.raw)
				}
				return r.raw["choices"].([]any)[0].(map[string]any)
			}

			// Keyword memory through the model; the next turn's prompt has it.
			first := choice(complete(map[string]any{"user": "oa-user", "messages": []map[string]any{
				{"role": "user", "content": `#call setKeywordMemory {"data":[{"keyword":"name","value":"Grace"}]}`}}}))
			if msg := first["message"].(map[string]any); !strings.HasPrefix(str(msg, "content"), "tool said: saved: name") {
				t.Fatalf("first answer = %v", first)
			}
			vars := s.call(t, "GET", "/v1/variables?bot_id="+botID+"&connector_id=openai&connector_uid=oa-user&keywords=name", bootstrapToken, nil).must(t, 200)
			if list := items(t, vars.data, "items"); len(list) != 1 || str(list[0], "value") != "Grace" {
				t.Fatalf("variables = %v", vars.data)
			}

			// A client tool comes back as tool_calls; the tool message continues.
			asked := []map[string]any{{"role": "user", "content": `#call lookup {"q":"pergola"}`}}
			call := choice(complete(map[string]any{"user": "oa-user", "messages": asked}))
			if call["finish_reason"] != "tool_calls" {
				t.Fatalf("finish_reason = %v", call["finish_reason"])
			}
			tc := call["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
			if fn := tc["function"].(map[string]any); str(fn, "name") != "lookup" || str(fn, "arguments") != `{"q":"pergola"}` {
				t.Fatalf("tool call = %v", tc)
			}
			asked = append(asked,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{tc}},
				map[string]any{"role": "tool", "tool_call_id": str(tc, "id"), "content": "a garden structure"})
			done := choice(complete(map[string]any{"user": "oa-user", "messages": asked}))
			if msg := done["message"].(map[string]any); str(msg, "content") != "tool said: a garden structure" || done["finish_reason"] != "stop" {
				t.Fatalf("after the tool = %v", done)
			}
			last := c.llm.Requests()[len(c.llm.Requests())-1]
			if !strings.Contains(last.Messages[0].Content, "You help Grace.") {
				t.Fatalf("the prompt lacks the remembered name: %q", last.Messages[0].Content)
			}

			// Errors in OpenAI's shape.
			bad := s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": "gpt-4o",
				"messages": []map[string]any{{"role": "user", "content": "x"}}})
			if bad.status != 404 || !strings.Contains(str(bad.raw["error"].(map[string]any), "message"), "model") {
				t.Fatalf("bad model: %d %v", bad.status, bad.raw)
			}
		})
	}
}
