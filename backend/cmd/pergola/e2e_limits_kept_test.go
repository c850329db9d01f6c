package main

import (
	"strings"
	"testing"
)

// overHistory says what a request is refused with when what the history
// trim cannot leave out is past PERGOLA_MAX_HISTORY_CHARS (2,500 here).
const overHistory = "are 2700 characters together, over the limit of 2500 (PERGOLA_MAX_HISTORY_CHARS)"

// limitsKept: the messages an OpenAI request's history trim keeps
// whatever their length (the caller's system messages, a tool loop's
// calls and results after the last user message) are bounded by the
// history limit together, each within the message limit or not; past it
// 400 naming messages (input on /v1/responses), and the model is not
// called. Within it they reach the model. The instructions of
// /v1/responses are a message: past the message limit, 400 naming them;
// so is each request tool's description, and all tools together are
// bounded by the history limit.
func limitsKept(t *testing.T, c *chatSetup, botID string) {
	part := strings.Repeat("s", 900)
	system := func(n int) []map[string]any {
		var out []map[string]any
		for range n {
			out = append(out, map[string]any{"role": "system", "content": part})
		}
		return out
	}
	before := len(c.llm.Requests())
	e := oaError(t, c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID,
		"messages": append(system(3), map[string]any{"role": "user", "content": "hi"})}), 400)
	if e["param"] != "messages" || !strings.Contains(e["message"].(string), overHistory) {
		t.Fatalf("three 900-character system messages: %v", e)
	}
	loop := []map[string]any{{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": []map[string]any{
		oaCall("c1"), oaCall("c2"), oaCall("c3")}}}
	for _, id := range []string{"c1", "c2", "c3"} {
		loop = append(loop, map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat("r", 898)})
	}
	e = oaError(t, c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID, "messages": loop}), 400)
	if e["param"] != "messages" || !strings.Contains(e["message"].(string), overHistory) {
		t.Fatalf("three 900-character tool rounds after the user's message: %v", e)
	}
	items := []map[string]any{{"role": "system", "content": part}, {"role": "developer", "content": part},
		{"role": "system", "content": part}, {"role": "user", "content": "hi"}}
	e = oaError(t, c.s.call(t, "POST", "/v1/responses", bootstrapToken, map[string]any{"model": botID, "store": false, "input": items}), 400)
	if e["param"] != "input" || !strings.Contains(e["message"].(string), overHistory) {
		t.Fatalf("three 900-character system items, not stored: %v", e)
	}
	e = oaError(t, c.s.call(t, "POST", "/v1/responses", bootstrapToken, map[string]any{"model": botID,
		"instructions": strings.Repeat("é", 1001), "input": "hi"}), 400)
	if e["param"] != "instructions" || !strings.Contains(e["message"].(string), overLimit) {
		t.Fatalf("over-long instructions: %v", e)
	}
	limitsTools(t, c, botID)
	if n := len(c.llm.Requests()) - before; n != 0 {
		t.Fatalf("the model was called %d times for refused requests", n)
	}
	r := c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID,
		"messages": append(system(2), map[string]any{"role": "user", "content": "hi"})})
	if r.status != 200 {
		t.Fatalf("two 900-character system messages: %d %v", r.status, r.raw)
	}
	reqs := c.llm.Requests()
	if got := reqs[len(reqs)-1].Messages; len(got) != 4 || got[1].Content != part || got[2].Content != part {
		t.Fatalf("the model got %d messages; want the prompt, both system messages and the question", len(got))
	}
}

// oaCall is an assistant's call of OpenAI's shape.
func oaCall(id string) map[string]any {
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "lookup", "arguments": "{}"}}
}

// limitsTools: a request tool's description past the message limit, and
// tools past the history limit together, are 400s naming tools.
func limitsTools(t *testing.T, c *chatSetup, botID string) {
	tool := func(name, desc string) map[string]any {
		return map[string]any{"type": "function", "function": map[string]any{"name": name, "description": desc}}
	}
	hi := []map[string]any{{"role": "user", "content": "hi"}}
	e := oaError(t, c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID, "messages": hi,
		"tools": []map[string]any{tool("a", strings.Repeat("é", 1001))}}), 400)
	if !strings.HasPrefix(e["param"].(string), "tools[0]") || !strings.Contains(e["message"].(string), overLimit) {
		t.Fatalf("an over-long tool description: %v", e)
	}
	long := strings.Repeat("d", 900)
	e = oaError(t, c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID, "messages": hi,
		"tools": []map[string]any{tool("a", long), tool("b", long), tool("c", long)}}), 400)
	if e["param"] != "tools" || !strings.Contains(e["message"].(string), "(PERGOLA_MAX_HISTORY_CHARS)") {
		t.Fatalf("three tools of 900-character descriptions: %v", e)
	}
}
