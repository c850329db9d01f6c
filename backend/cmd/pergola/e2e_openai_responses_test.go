package main

import (
	"strings"
	"testing"
)

// TestOpenAIResponses drives a bot through POST /v1/responses: a text
// answer, previous_response_id continuing the conversation, a function
// tool round (function_call, then function_call_output), the stream's
// semantic events, GET /v1/responses/{id}, and bad input.
func TestOpenAIResponses(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			botID := c.bot(t, map[string]any{"name": "R", "prompt": "You are R.", "model": map[string]any{"model_id": "fake"}})
			respond := func(body map[string]any) reply {
				body["model"] = botID
				return s.call(t, "POST", "/v1/responses", bootstrapToken, body)
			}

			first := respond(map[string]any{"input": "hello there", "instructions": "Be short."})
			if first.status != 200 || first.raw["object"] != "response" || first.raw["status"] != "completed" {
				t.Fatalf("first: %d %v", first.status, first.raw)
			}
			id := str(first.raw, "id")
			if !strings.HasPrefix(id, "resp_") || outputText(t, first.raw) != "echo: hello there" {
				t.Fatalf("first = %v", first.raw)
			}
			if u := first.raw["usage"].(map[string]any); u["total_tokens"].(float64) <= 0 {
				t.Fatalf("usage = %v", u)
			}
			if sys := c.llm.Requests()[len(c.llm.Requests())-1].Messages[0].Content; !strings.Contains(sys, "You are R.") || !strings.Contains(sys, "Be short.") {
				t.Fatalf("the prompt lacks the bot's prompt or the instructions: %q", sys)
			}

			second := respond(map[string]any{"input": []any{map[string]any{"role": "user", "content": "and again"}}, "previous_response_id": id})
			if second.status != 200 || outputText(t, second.raw) != "echo: and again" || second.raw["previous_response_id"] != id {
				t.Fatalf("second: %d %v", second.status, second.raw)
			}
			if !modelSaw(c, "hello there") {
				t.Fatal("previous_response_id did not continue the conversation: the model did not see the first turn")
			}

			// A function tool: the call ends the response, its output continues it.
			weather := map[string]any{"type": "function", "name": "get_weather", "parameters": map[string]any{"type": "object"}}
			call := respond(map[string]any{"input": `#call get_weather {"city":"Rome"}`, "tools": []any{weather}})
			out := call.raw["output"].([]any)
			fc := out[len(out)-1].(map[string]any)
			if call.status != 200 || fc["type"] != "function_call" || fc["name"] != "get_weather" || fc["arguments"] != `{"city":"Rome"}` || str(fc, "call_id") == "" {
				t.Fatalf("function call: %d %v", call.status, call.raw)
			}
			done := respond(map[string]any{"previous_response_id": call.raw["id"], "tools": []any{weather},
				"input": []any{map[string]any{"type": "function_call_output", "call_id": fc["call_id"], "output": "sunny"}}})
			if done.status != 200 || outputText(t, done.raw) != "tool said: sunny" || done.raw["id"] == call.raw["id"] {
				t.Fatalf("after the output: %d %v", done.status, done.raw)
			}
			got := s.call(t, "GET", "/v1/responses/"+str(done.raw, "id"), bootstrapToken, nil)
			if got.status != 200 || got.raw["status"] != "completed" || !strings.Contains(outputTexts(got.raw), "tool said: sunny") {
				t.Fatalf("GET: %d %v", got.status, got.raw)
			}

			statelessLoop(t, s, respond, weather)

			// Streamed: the semantic events in order, the text in deltas.
			events := s.stream(t, "/v1/responses", bootstrapToken, map[string]any{"model": botID, "input": "streamed words", "stream": true})
			want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
				"response.output_text.delta"}
			if got := names(events); len(got) < 9 || strings.Join(got[:5], ",") != strings.Join(want, ",") ||
				strings.Join(got[len(got)-4:], ",") != "response.output_text.done,response.content_part.done,response.output_item.done,response.completed" {
				t.Fatalf("events = %v", got)
			}
			var text strings.Builder
			for i, e := range events {
				o := e.obj(t)
				if o["type"] != e.name || o["sequence_number"].(float64) != float64(i) {
					t.Fatalf("event %d = %v", i, o)
				}
				if e.name == "response.output_text.delta" {
					text.WriteString(str(o, "delta"))
				}
			}
			if text.String() != "echo: streamed words" {
				t.Fatalf("deltas = %q", text.String())
			}

			for _, bad := range []struct {
				body   map[string]any
				status int
				param  string
			}{
				{map[string]any{"input": []any{map[string]any{"type": "function_call_output", "call_id": "call_x", "output": "x"}}}, 400, "input[0].call_id"},
				{map[string]any{"input": "x", "store": false, "previous_response_id": id}, 400, "store"},
				{map[string]any{"input": "x", "previous_response_id": "resp_1_2"}, 404, "previous_response_id"},
				{map[string]any{"input": []any{map[string]any{"role": "wizard", "content": "x"}}}, 400, "input[0].role"},
				{map[string]any{"previous_response_id": id, "input": []any{map[string]any{"type": "function_call_output", "call_id": "call_x", "output": "x"}}}, 409, ""},
			} {
				e := oaError(t, respond(bad.body), bad.status)
				if bad.param != "" && e["param"] != bad.param {
					t.Fatalf("%v: %v; want param %s", bad.body, e, bad.param)
				}
			}
			if e := oaError(t, s.call(t, "POST", "/v1/responses", bootstrapToken, map[string]any{"model": "gpt-4o", "input": "x"}), 404); e["code"] != "model_not_found" {
				t.Fatalf("unknown model: %v", e)
			}
		})
	}
}

// statelessLoop runs a tool loop as the Vercel AI SDK and LangChain do:
// the whole transcript in input, no previous_response_id, with and
// without store.
func statelessLoop(t *testing.T, s *testServer, respond func(map[string]any) reply, weather map[string]any) {
	t.Helper()
	ask := map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": `#call get_weather {"city":"Oslo"}`}}}
	first := respond(map[string]any{"input": []any{ask}, "tools": []any{weather}, "store": false})
	out := first.raw["output"].([]any)
	fc := out[len(out)-1].(map[string]any)
	if first.status != 200 || fc["type"] != "function_call" || first.raw["store"] != false {
		t.Fatalf("stateless call: %d %v", first.status, first.raw)
	}
	for _, store := range []any{nil, false} {
		body := map[string]any{"tools": []any{weather}, "input": []any{ask,
			map[string]any{"type": "function_call", "call_id": fc["call_id"], "name": "get_weather", "arguments": fc["arguments"]},
			map[string]any{"type": "function_call_output", "call_id": fc["call_id"], "output": "rainy"}}}
		if store != nil {
			body["store"] = store
		}
		done := respond(body)
		if done.status != 200 || outputText(t, done.raw) != "tool said: rainy" || done.raw["store"] != false {
			t.Fatalf("stateless output (store %v): %d %v", store, done.status, done.raw)
		}
		if got := s.call(t, "GET", "/v1/responses/"+str(done.raw, "id"), bootstrapToken, nil); got.status != 404 {
			t.Fatalf("a stateless response is not stored, GET: %d %v", got.status, got.raw)
		}
	}
	plain := respond(map[string]any{"input": "not kept", "store": false})
	if plain.status != 200 || outputText(t, plain.raw) != "echo: not kept" {
		t.Fatalf("store false: %d %v", plain.status, plain.raw)
	}
}

// outputText joins the output_text parts of a response's message items.
func outputText(t *testing.T, resp map[string]any) string {
	t.Helper()
	return outputTexts(resp)
}

func outputTexts(resp map[string]any) string {
	var b strings.Builder
	for _, it := range resp["output"].([]any) {
		item := it.(map[string]any)
		if item["type"] != "message" {
			continue
		}
		for _, p := range item["content"].([]any) {
			b.WriteString(str(p.(map[string]any), "text"))
		}
	}
	return b.String()
}

// modelSaw reports whether the last model request carried text.
func modelSaw(c *chatSetup, text string) bool {
	reqs := c.llm.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}
