package main

import (
	"encoding/json"
	"testing"
)

// TestOpenAIStructuredOutput: a request's response_format (chat
// completions) and text.format (Responses) reach the bot's model for that
// turn, so the answer is JSON valid for the schema; a format Pergola or the
// model refuses is a 400 naming the field.
func TestOpenAIStructuredOutput(t *testing.T) {
	c := newChatSetup(t, backends()[0]) // no storage involved
	s := c.s
	botID := c.bot(t, map[string]any{"name": "S", "prompt": "p", "model": map[string]any{"model_id": "fake"}})
	schema := map[string]any{"type": "object", "additionalProperties": false, "required": []any{"city", "days"},
		"properties": map[string]any{"city": map[string]any{"type": "string", "enum": []any{"Oslo", "Rome"}},
			"days": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}}}
	want := map[string]any{"city": "Oslo", "days": []any{1.0}}
	complete := func(body map[string]any) reply {
		body["model"] = botID
		return s.call(t, "POST", "/v1/chat/completions", bootstrapToken, body)
	}
	hi := []map[string]any{{"role": "user", "content": "plan a trip"}}

	r := complete(map[string]any{"messages": hi, "response_format": map[string]any{"type": "json_schema",
		"json_schema": map[string]any{"name": "trip", "strict": true, "schema": schema}}}).must(t, 200)
	content := r.raw["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	assertJSON(t, "chat completion", content, want)
	if f := c.llm.Requests()[len(c.llm.Requests())-1].Format; f == nil || f.Name != "trip" || !f.Strict {
		t.Fatalf("the model got the format %+v", f)
	}
	r = complete(map[string]any{"messages": []map[string]any{{"role": "user", "content": "answer in JSON"}},
		"response_format": map[string]any{"type": "json_object"}}).must(t, 200)
	content = r.raw["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	assertJSON(t, "json_object", content, map[string]any{"echo": "echo: answer in JSON"})
	complete(map[string]any{"messages": hi}).must(t, 200)
	if f := c.llm.Requests()[len(c.llm.Requests())-1].Format; f != nil {
		t.Fatalf("a request without a format reached the model with %+v (the agent's options leaked)", f)
	}

	format := map[string]any{"type": "json_schema", "name": "trip", "schema": schema, "strict": true}
	r = s.call(t, "POST", "/v1/responses", bootstrapToken, map[string]any{"model": botID, "input": "plan a trip",
		"text": map[string]any{"format": format}}).must(t, 200)
	item := r.raw["output"].([]any)[0].(map[string]any)
	assertJSON(t, "response", item["content"].([]any)[0].(map[string]any)["text"].(string), want)
	if got := r.raw["text"].(map[string]any)["format"].(map[string]any); got["name"] != "trip" {
		t.Fatalf("the response echoes text.format %v", got)
	}

	for _, bad := range []struct {
		format any
		param  string
	}{
		{map[string]any{"type": "xml"}, "response_format.type"},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "a b", "schema": schema}}, "response_format.json_schema.name"},
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "n"}}, "response_format.json_schema.schema"},
		{map[string]any{"type": "json_object"}, "response_format"}, // no "JSON" in the messages, as OpenAI refuses
		{map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "n", "schema": map[string]any{"type": "string"}}}, "response_format.json_schema.schema"},
	} {
		if e := oaError(t, complete(map[string]any{"messages": hi, "response_format": bad.format}), 400); e["param"] != bad.param {
			t.Fatalf("%v: param %v, want %s (%v)", bad.format, e["param"], bad.param, e)
		}
	}
	e := oaError(t, s.call(t, "POST", "/v1/responses", bootstrapToken, map[string]any{"model": botID, "input": "plan a trip",
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "trip"}}}), 400)
	if e["param"] != "text.format.schema" {
		t.Fatalf("a Responses format without a schema: %v", e)
	}
}

func assertJSON(t *testing.T, what, text string, want map[string]any) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("%s: the answer %q is not JSON: %v", what, text, err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Fatalf("%s: the answer is %s, want %s", what, a, b)
	}
}
