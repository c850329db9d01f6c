package fakellm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestInvalidMessagesAre400: what OpenAI refuses about a conversation the
// fake refuses too, with OpenAI's status and error shape, and without
// consuming a queued reply.
func TestInvalidMessagesAre400(t *testing.T) {
	call := `{"id":"c1","type":"function","function":{"name":"add","arguments":"{}"}}`
	call2 := `{"id":"c2","type":"function","function":{"name":"add","arguments":"{}"}}`
	cases := []struct {
		name, messages, want string
	}{
		{"no messages", `[]`, "too short"},
		{"unknown role", `[{"role":"robot","content":"hi"}]`, "Invalid value: 'robot'"},
		{"user without content", `[{"role":"user"}]`, "messages.[0].content"},
		{"assistant with neither content nor calls", `[{"role":"user","content":"hi"},{"role":"assistant","content":null}]`, "got null"},
		{"tool without a call before it", `[{"role":"user","content":"hi"},{"role":"tool","content":"5","tool_call_id":"c1"}]`,
			"must be a response to a preceeding message with 'tool_calls'"},
		{"tool answering an unknown call", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[` + call + `]},{"role":"tool","content":"5","tool_call_id":"c9"}]`,
			"must be a response to a preceeding message"},
		{"tool after an assistant text between", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[` + call + `]},{"role":"assistant","content":"Pick one"},{"role":"tool","content":"5","tool_call_id":"c1"}]`,
			"did not have response messages: c1"},
		{"a call left unanswered", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[` + call + `,` + call2 + `]},{"role":"tool","content":"5","tool_call_id":"c1"},{"role":"user","content":"and?"}]`,
			"did not have response messages: c2"},
		{"calls as the last message", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[` + call + `]}]`,
			"did not have response messages: c1"},
		{"a call answered twice", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[` + call + `]},{"role":"tool","content":"5","tool_call_id":"c1"},{"role":"tool","content":"5","tool_call_id":"c1"}]`,
			"must be a response to a preceeding message"},
		{"a call id used twice", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[` + call + `]},{"role":"tool","content":"5","tool_call_id":"c1"},{"role":"assistant","tool_calls":[` + call + `]},{"role":"tool","content":"5","tool_call_id":"c1"}]`,
			"Duplicate value for 'tool_call_id' of c1"},
		{"tool without tool_call_id", `[{"role":"user","content":"hi"},{"role":"tool","content":"5"}]`, "tool_call_id"},
		{"a call without a name", `[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"arguments":"{}"}}]},{"role":"tool","content":"5","tool_call_id":"c1"}]`,
			"function.name"},
	}
	s := fakellm.Start(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.Enqueue(fakellm.Text("queued"))
			defer s.Reset()
			status, body := post(t, s, `{"model":"fake","messages":`+c.messages+`}`)
			if status != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400; body %s", status, body)
			}
			var e struct {
				Error struct{ Message, Type, Param string } `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if e.Error.Type != "invalid_request_error" || e.Error.Param != "messages" || !strings.Contains(e.Error.Message, c.want) {
				t.Fatalf("error = %+v, want an invalid_request_error on messages saying %q", e.Error, c.want)
			}
			if n := len(s.Requests()); n != 1 {
				t.Errorf("recorded %d requests, want the refused one", n)
			}
			status, body = post(t, s, `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`)
			if status != http.StatusOK || !strings.Contains(string(body), "queued") {
				t.Errorf("the queued reply was not kept for the next valid request: %d %s", status, body)
			}
		})
	}
}

// TestValidToolRoundsPass: parallel calls answered in any order, and
// several rounds, are accepted.
func TestValidToolRoundsPass(t *testing.T) {
	s := fakellm.Start(t)
	c1 := schema.ToolCall{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "add", Arguments: "{}"}}
	c2 := schema.ToolCall{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "add", Arguments: "{}"}}
	c3 := schema.ToolCall{ID: "c3", Type: "function", Function: schema.FunctionCall{Name: "add", Arguments: "{}"}}
	msgs := []*schema.Message{
		schema.SystemMessage("be brief"), schema.UserMessage("hi"),
		schema.AssistantMessage("", []schema.ToolCall{c1, c2}),
		schema.ToolMessage("2", "c2"), schema.ToolMessage("1", "c1"),
		schema.AssistantMessage("Let me add more.", []schema.ToolCall{c3}),
		schema.ToolMessage("3", "c3"),
	}
	out, err := newClient(t, s).Generate(context.Background(), msgs)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if out.Content != "tool said: 3" {
		t.Errorf("answer = %q", out.Content)
	}
}

func post(t *testing.T, s *fakellm.Server, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes()
}
