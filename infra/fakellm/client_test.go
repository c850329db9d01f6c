package fakellm_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// newClient returns the real eino-ext openai chat model pointed at s.
func newClient(t testing.TB, s *fakellm.Server) *openai.ChatModel {
	t.Helper()
	cm, err := openai.NewChatModel(context.Background(), &openai.ChatModelConfig{
		BaseURL: s.BaseURL(), APIKey: "test-key", Model: "fake",
	})
	if err != nil {
		t.Fatalf("new chat model: %v", err)
	}
	return cm
}

// collect drains a stream and returns its chunks.
func collect(t *testing.T, sr *schema.StreamReader[*schema.Message]) []*schema.Message {
	t.Helper()
	defer sr.Close()
	var chunks []*schema.Message
	for {
		m, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return chunks
		}
		if err != nil {
			t.Fatalf("recv: %v", err)
		}
		chunks = append(chunks, m)
	}
}

func concat(t *testing.T, chunks []*schema.Message) *schema.Message {
	t.Helper()
	m, err := schema.ConcatMessages(chunks)
	if err != nil {
		t.Fatalf("concat: %v", err)
	}
	return m
}

func user(s string) []*schema.Message { return []*schema.Message{schema.UserMessage(s)} }

func TestGenerateText(t *testing.T) {
	s := fakellm.Start(t)
	s.Enqueue(fakellm.Text("hello there"))
	msg, err := newClient(t, s).Generate(context.Background(), user("hi"))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if msg.Role != schema.Assistant || msg.Content != "hello there" {
		t.Errorf("got %s %q, want assistant %q", msg.Role, msg.Content, "hello there")
	}
	if got := msg.ResponseMeta.FinishReason; got != "stop" {
		t.Errorf("finish reason = %q, want stop", got)
	}
}

func TestStreamTextInSeveralChunks(t *testing.T) {
	s := fakellm.Start(t, fakellm.WithChunkChars(3))
	s.Enqueue(fakellm.Text("hello world"))
	sr, err := newClient(t, s).Stream(context.Background(), user("hi"))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	chunks := collect(t, sr)
	var texts []string
	for _, c := range chunks {
		if c.Content != "" {
			texts = append(texts, c.Content)
		}
	}
	if diff := cmp.Diff([]string{"hel", "lo ", "wor", "ld"}, texts); diff != "" {
		t.Errorf("content deltas (-want +got):\n%s", diff)
	}
	if got := concat(t, chunks).Content; got != "hello world" {
		t.Errorf("concatenated = %q", got)
	}
}

func TestGenerateToolCall(t *testing.T) {
	s := fakellm.Start(t)
	s.Enqueue(fakellm.Calls(fakellm.Call("add", `{"a":2,"b":3}`)))
	msg, err := newClient(t, s).Generate(context.Background(), user("add"))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if len(msg.ToolCalls) != 1 {
		t.Fatalf("got %d tool calls, want 1", len(msg.ToolCalls))
	}
	tc := msg.ToolCalls[0]
	if tc.ID == "" || tc.Function.Name != "add" || tc.Function.Arguments != `{"a":2,"b":3}` {
		t.Errorf("tool call = %+v", tc)
	}
	if got := msg.ResponseMeta.FinishReason; got != "tool_calls" {
		t.Errorf("finish reason = %q, want tool_calls", got)
	}
}

func TestStreamSplitToolCallsConcatenate(t *testing.T) {
	s := fakellm.Start(t, fakellm.WithChunkChars(2))
	s.Enqueue(fakellm.Calls(
		fakellm.Call("add", `{"a":2,"b":3}`),
		fakellm.Call("mul", `{"a":4,"b":5}`),
	))
	sr, err := newClient(t, s).Stream(context.Background(), user("go"))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	chunks := collect(t, sr)
	if len(chunks) < 6 {
		t.Errorf("got %d chunks, want the calls split over many", len(chunks))
	}
	type call struct{ Name, Args string }
	var got []call
	for _, tc := range concat(t, chunks).ToolCalls {
		if tc.ID == "" || tc.Index == nil {
			t.Errorf("call %+v lacks id or index", tc)
		}
		got = append(got, call{tc.Function.Name, tc.Function.Arguments})
	}
	want := []call{{"add", `{"a":2,"b":3}`}, {"mul", `{"a":4,"b":5}`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestStreamTextBeforeToolCall(t *testing.T) {
	s := fakellm.Start(t)
	s.Enqueue(fakellm.Reply{Text: "Let me compute. ", ToolCalls: []fakellm.ToolCall{fakellm.Call("add", `{"a":1}`)}})
	sr, err := newClient(t, s).Stream(context.Background(), user("go"))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	chunks := collect(t, sr)
	if chunks[0].Content == "" || len(chunks[0].ToolCalls) != 0 {
		t.Errorf("first chunk = %+v, want text without tool calls", chunks[0])
	}
	msg := concat(t, chunks)
	if msg.Content != "Let me compute. " || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Arguments != `{"a":1}` {
		t.Errorf("message = %q %+v", msg.Content, msg.ToolCalls)
	}
}

func TestUsageSurfacesInResponseMeta(t *testing.T) {
	given := &fakellm.Usage{PromptTokens: 7, CompletionTokens: 3}
	want := &schema.TokenUsage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}
	// "abcdefgh" is 2 tokens in, "echo: abcdefgh" is 4 tokens out.
	counted := &schema.TokenUsage{PromptTokens: 2, CompletionTokens: 4, TotalTokens: 6}
	cases := []struct {
		name   string
		stream bool
		usage  *fakellm.Usage
		want   *schema.TokenUsage
	}{
		{"generate given", false, given, want},
		{"stream given", true, given, want},
		{"generate counted", false, nil, counted},
		{"stream counted", true, nil, counted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fakellm.Start(t)
			s.When(func(fakellm.Request) bool { return true }, func(r fakellm.Request) fakellm.Reply {
				return fakellm.Reply{Text: "echo: " + r.LastUserText(), Usage: tc.usage}
			})
			msg := run(t, newClient(t, s), tc.stream, user("abcdefgh"))
			if diff := cmp.Diff(tc.want, msg.ResponseMeta.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

// run calls Generate, or Stream and concatenates.
func run(t *testing.T, cm *openai.ChatModel, stream bool, in []*schema.Message) *schema.Message {
	t.Helper()
	if !stream {
		msg, err := cm.Generate(context.Background(), in)
		if err != nil {
			t.Fatalf("generate: %v", err)
		}
		return msg
	}
	sr, err := cm.Stream(context.Background(), in)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	return concat(t, collect(t, sr))
}

func TestErrorStatusSurfaces(t *testing.T) {
	for _, stream := range []bool{false, true} {
		s := fakellm.Start(t)
		s.Enqueue(fakellm.Fail(429, "slow down"))
		cm := newClient(t, s)
		var err error
		if stream {
			_, err = cm.Stream(context.Background(), user("hi"))
		} else {
			_, err = cm.Generate(context.Background(), user("hi"))
		}
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("stream=%v: err = %v, want *openai.APIError", stream, err)
		}
		if apiErr.HTTPStatusCode != 429 || apiErr.Message != "slow down" || apiErr.Type != "rate_limit_error" {
			t.Errorf("stream=%v: error = %+v", stream, apiErr)
		}
	}
}
