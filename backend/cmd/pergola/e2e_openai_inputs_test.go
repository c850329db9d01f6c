package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestOpenAIEmptyAndUnsupportedInputs pins what the OpenAI surfaces do
// with an empty function result (the model gets "(no output)" instead of
// the turn failing with 502) and with input a bot cannot take: a 400
// naming the field, never a 502 from the model refusing it.
func TestOpenAIEmptyAndUnsupportedInputs(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			botID := c.bot(t, map[string]any{"name": "E", "prompt": "You are E.", "model": map[string]any{"model_id": "fake"}})
			post := func(path string, body map[string]any) reply {
				body["model"] = botID
				return s.call(t, "POST", path, bootstrapToken, body)
			}
			emptyToolResults(t, c, post)

			user := func(content any) []any { return []any{map[string]any{"role": "user", "content": content}} }
			for _, bad := range []struct {
				path  string
				body  map[string]any
				param string
				says  string
			}{
				{"/v1/chat/completions", map[string]any{"messages": user("hi"), "n": 2}, "n", "only 1"},
				{"/v1/chat/completions", map[string]any{"messages": user("")}, "messages[0].content", "empty"},
				{"/v1/chat/completions", map[string]any{"messages": user([]any{map[string]any{"type": "image_url",
					"image_url": map[string]any{"url": "https://example.com/a.png"}}})}, "messages[0].content", "only text parts"},
				{"/v1/chat/completions", map[string]any{"messages": user("hi"), "tools": []any{map[string]any{"type": "function",
					"function": map[string]any{"name": "f", "parameters": "x"}}}}, "tools[0].function.parameters", "JSON Schema"},
				{"/v1/responses", map[string]any{"input": "hi", "tools": []any{map[string]any{"type": "function", "name": "f",
					"parameters": "x"}}}, "tools[0].parameters", "JSON Schema"},
				{"/v1/chat/completions", map[string]any{"messages": user("hi"), "tools": []any{map[string]any{"type": "function",
					"function": map[string]any{"name": "f", "parameters": map[string]any{"type": "object", "properties": "bad"}}}}},
					"tools[0].parameters", "not a valid JSON Schema"},
				{"/v1/chat/completions", map[string]any{"messages": user("hi"), "tool_choice": "required"}, "tool_choice", "send tools"},
				{"/v1/responses", map[string]any{"input": ""}, "input", "empty"},
				{"/v1/responses", map[string]any{"input": "hi", "conversation": "conv_1"}, "conversation", "previous_response_id"},
				{"/v1/responses", map[string]any{"input": nil}, "input", "empty"},
				{"/v1/responses", map[string]any{"input": user("")}, "input[0].content", "empty"},
				{"/v1/responses", map[string]any{"input": user([]any{map[string]any{"type": "input_text", "text": "a"}}), "store": false,
					"instructions": "x", "tools": []any{map[string]any{"type": "function", "name": "f", "description": 5}}}, "tools.description", "string"},
			} {
				e := oaError(t, post(bad.path, bad.body), 400)
				if e["param"] != bad.param || !strings.Contains(str(e, "message"), bad.says) || strings.Contains(str(e, "message"), "oa") {
					t.Errorf("%s %v: %v; want param %s saying %q", bad.path, bad.body, e, bad.param, bad.says)
				}
			}
			long := strings.Repeat("x", 40000)
			twoItems := []any{map[string]any{"role": "system", "content": "be"}, map[string]any{"role": "user", "content": long}}
			many := make([]any, 101)
			for i := range many {
				many[i] = map[string]any{"role": "user", "content": "a"}
			}
			for _, bad := range []struct {
				body  map[string]any
				param string
			}{ // errors name the input item sent, not Pergola's own request
				{map[string]any{"input": twoItems}, "input[1].content"},
				{map[string]any{"input": twoItems, "store": false, "instructions": "i"}, "input[1].content"},
				{map[string]any{"input": "hi", "store": false, "instructions": long}, "instructions"},
				{map[string]any{"input": long}, "input"},
				{map[string]any{"input": many}, "input"},
			} {
				e := oaError(t, post("/v1/responses", bad.body), 400)
				if e["param"] != bad.param || strings.Contains(str(e, "message"), "messages[") || strings.Contains(str(e, "message"), "additional_messages") {
					t.Errorf("%v: %v; want param %s", bad.param, e, bad.param)
				}
			}
			if e := oaError(t, s.call(t, "POST", "/v1/chat/completions", bootstrapToken, "[1]"), 400); !strings.Contains(str(e, "message"), "an object") {
				t.Errorf("an array body: %v", e)
			}
		})
	}
}

// emptyToolResults answers a function call with an empty result on both
// APIs: the turn completes, and the model was sent "(no output)". An
// empty assistant message sent back is left out rather than failing, and
// a developer message is read as a system one, on both APIs.
func emptyToolResults(t *testing.T, c *chatSetup, post func(string, map[string]any) reply) {
	t.Helper()
	fn := map[string]any{"type": "function", "function": map[string]any{"name": "ping"}}
	done := post("/v1/chat/completions", map[string]any{"tools": []any{fn}, "messages": []any{
		map[string]any{"role": "user", "content": "#call ping {}"},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
			"function": map[string]any{"name": "ping", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": ""}}})
	if done.status != 200 || !strings.Contains(fmt.Sprint(done.raw["choices"]), "tool said: (no output)") {
		t.Fatalf("chat completions, empty tool result: %d %v", done.status, done.raw)
	}
	rsTool := []any{map[string]any{"type": "function", "name": "ping"}}
	call := post("/v1/responses", map[string]any{"input": "#call ping {}", "tools": rsTool})
	out := call.raw["output"].([]any)
	fc := out[len(out)-1].(map[string]any)
	if call.status != 200 || fc["type"] != "function_call" {
		t.Fatalf("responses call: %d %v", call.status, call.raw)
	}
	after := post("/v1/responses", map[string]any{"previous_response_id": call.raw["id"], "tools": rsTool,
		"input": []any{map[string]any{"type": "function_call_output", "call_id": fc["call_id"], "output": ""}}})
	if after.status != 200 || outputText(t, after.raw) != "tool said: (no output)" {
		t.Fatalf("responses, empty function_call_output: %d %v", after.status, after.raw)
	}
	if !modelSaw(c, "(no output)") {
		t.Fatal("the model was not sent (no output) for the empty result")
	}
	for _, path := range []string{"/v1/chat/completions", "/v1/responses"} { // an empty answer sent back is left out
		msgs := []any{map[string]any{"role": "developer", "content": "Be brief."}, map[string]any{"role": "user", "content": "one"},
			map[string]any{"role": "assistant", "content": ""}, map[string]any{"role": "user", "content": "two"}}
		body := map[string]any{"messages": msgs}
		if path == "/v1/responses" {
			body = map[string]any{"input": msgs, "store": false}
		}
		if got := post(path, body); got.status != 200 || !strings.Contains(fmt.Sprint(got.raw), "echo: two") {
			t.Fatalf("%s with an empty assistant message: %d %v", path, got.status, got.raw)
		}
	}
}
