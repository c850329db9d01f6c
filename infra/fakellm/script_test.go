package fakellm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

var addTool = &schema.ToolInfo{
	Name: "add", Desc: "adds two numbers",
	ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"a": {Type: schema.Integer}, "b": {Type: schema.Integer},
	}),
}

func TestDefaultBehaviour(t *testing.T) {
	call := schema.ToolCall{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "add", Arguments: "{}"}}
	call2 := schema.ToolCall{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "add", Arguments: "{}"}}
	cases := []struct {
		name      string
		in        []*schema.Message
		wantText  string
		wantCalls []string // name + " " + arguments
	}{
		{"echo", user("hello"), "echo: hello", nil},
		{"call offered tool", user(`please #call add {"a": 2, "b": 3}`), "", []string{`add {"a":2,"b":3}`}},
		{"call without args", user("#call add"), "", []string{"add {}"}},
		{"two calls", user(`#call add {"a":1} and #call add {"b":2}`), "", []string{`add {"a":1}`, `add {"b":2}`}},
		{"unknown tool echoes", user("#call nope {}"), "echo: #call nope {}", nil},
		{"tool result", []*schema.Message{
			schema.UserMessage("#call add {}"),
			schema.AssistantMessage("", []schema.ToolCall{call}),
			schema.ToolMessage("5", "c1"),
		}, "tool said: 5", nil},
		{"parallel tool results", []*schema.Message{
			schema.UserMessage("x"),
			schema.AssistantMessage("", []schema.ToolCall{call, call2}),
			schema.ToolMessage("5", "c1"), schema.ToolMessage("6", "c2"),
		}, "tool said: 5; 6", nil},
	}
	s := fakellm.Start(t, fakellm.WithRecordLimit(0))
	cm, err := newClient(t, s).WithTools([]*schema.ToolInfo{addTool})
	if err != nil {
		t.Fatalf("with tools: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := cm.Generate(context.Background(), tc.in)
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			var calls []string
			for _, c := range msg.ToolCalls {
				calls = append(calls, c.Function.Name+" "+c.Function.Arguments)
			}
			if msg.Content != tc.wantText || !cmp.Equal(calls, tc.wantCalls) {
				t.Errorf("got %q %v, want %q %v", msg.Content, calls, tc.wantText, tc.wantCalls)
			}
		})
	}
}

func TestQueueBeforeRulesBeforeDefault(t *testing.T) {
	s := fakellm.Start(t)
	s.When(func(r fakellm.Request) bool { return strings.Contains(r.LastUserText(), "rule") },
		func(fakellm.Request) fakellm.Reply { return fakellm.Text("by rule") })
	s.Enqueue(fakellm.Text("queued"))
	cm := newClient(t, s)
	var got []string
	for _, in := range []string{"rule", "rule", "plain"} {
		got = append(got, run(t, cm, false, user(in)).Content)
	}
	if diff := cmp.Diff([]string{"queued", "by rule", "echo: plain"}, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

func TestRequestsAreRecorded(t *testing.T) {
	s := fakellm.Start(t)
	cm, err := newClient(t, s).WithTools([]*schema.ToolInfo{addTool})
	if err != nil {
		t.Fatalf("with tools: %v", err)
	}
	in := []*schema.Message{schema.SystemMessage("be brief"), schema.UserMessage("hi")}
	sr, err := cm.Stream(context.Background(), in, model.WithTemperature(0.5), model.WithMaxTokens(64))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	collect(t, sr)
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("recorded %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	want := []fakellm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}
	if diff := cmp.Diff(want, r.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if r.Model != "fake" || !r.Stream || !r.IncludeUsage || r.APIKey != "test-key" || !r.HasTool("add") {
		t.Errorf("request = %+v", r)
	}
	if r.Temperature == nil || *r.Temperature != 0.5 || r.MaxTokens == nil || *r.MaxTokens != 64 {
		t.Errorf("temperature %v, max tokens %v", r.Temperature, r.MaxTokens)
	}
	s.Reset()
	if n := len(s.Requests()); n != 0 {
		t.Errorf("after Reset: %d requests", n)
	}
}

func TestRecordLimit(t *testing.T) {
	cases := []struct {
		limit int
		want  []string
	}{
		{0, []string{}},
		{2, []string{"r3", "r4"}},
		{10, []string{"r1", "r2", "r3", "r4"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			s := fakellm.Start(t, fakellm.WithRecordLimit(tc.limit))
			cm := newClient(t, s)
			for i := 1; i <= 4; i++ {
				run(t, cm, false, user(fmt.Sprintf("r%d", i)))
			}
			got := []string{}
			for _, r := range s.Requests() {
				got = append(got, r.LastUserText())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPIKeyIsChecked(t *testing.T) {
	s := fakellm.Start(t, fakellm.WithAPIKey("right"))
	_, err := newClient(t, s).Generate(context.Background(), user("hi"))
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 APIError", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("rejected request was recorded (%d)", n)
	}
}

func TestModelsRoute(t *testing.T) {
	s := fakellm.Start(t, fakellm.WithModels("a", "b"))
	resp, err := http.Get(s.BaseURL() + "/models")
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(body.Data) != 2 || body.Data[0].ID != "a" || body.Data[1].ID != "b" {
		t.Errorf("models = %+v", body.Data)
	}
}

func TestConcurrentDefaultChats(t *testing.T) {
	s := fakellm.Start(t, fakellm.WithRecordLimit(0), fakellm.WithChunkChars(1))
	cm := newClient(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			in := user(fmt.Sprintf("chat %d", i))
			sr, err := cm.Stream(context.Background(), in)
			if err != nil {
				errs <- err
				return
			}
			msg, err := schema.ConcatMessageStream(sr)
			if err == nil && msg.Content != fmt.Sprintf("echo: chat %d", i) {
				err = fmt.Errorf("chat %d got %q", i, msg.Content)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
