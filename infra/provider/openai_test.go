package provider_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/provider"
)

var addTool = &schema.ToolInfo{
	Name: "add", Desc: "adds two numbers",
	ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
		"a": {Type: schema.Integer, Required: true}, "b": {Type: schema.Integer, Required: true},
	}),
}

func openAIModel(baseURL string) llm.Model {
	return llm.Model{ID: "fake", Provider: llm.ProviderOpenAI, BaseURL: baseURL, APIKey: "sk-test", Model: "gpt-fake"}
}

func user(s string) []*schema.Message { return []*schema.Message{schema.UserMessage(s)} }

func TestOpenAIGenerateAndStream(t *testing.T) {
	s := fakellm.Start(t, fakellm.WithChunkChars(2))
	cm, err := provider.Factory{}.ChatModel(context.Background(), openAIModel(s.BaseURL()))
	if err != nil {
		t.Fatalf("chat model: %v", err)
	}
	msg, err := cm.Generate(context.Background(), user("hello"))
	if err != nil || msg.Content != "echo: hello" {
		t.Fatalf("generate = %v, %v; want %q", msg, err, "echo: hello")
	}
	sr, err := cm.Stream(context.Background(), user("streamed"))
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	msg, err = schema.ConcatMessageStream(sr)
	if err != nil || msg.Content != "echo: streamed" {
		t.Fatalf("stream = %v, %v; want %q", msg, err, "echo: streamed")
	}
	for _, r := range s.Requests() {
		if r.Model != "gpt-fake" || r.APIKey != "sk-test" {
			t.Errorf("request model %q key %q, want the configured ones", r.Model, r.APIKey)
		}
	}
}

func TestOpenAIToolCallWithTools(t *testing.T) {
	s := fakellm.Start(t)
	cm, err := provider.Factory{}.ChatModel(context.Background(), openAIModel(s.BaseURL()))
	if err != nil {
		t.Fatalf("chat model: %v", err)
	}
	bound, err := cm.WithTools([]*schema.ToolInfo{addTool})
	if err != nil {
		t.Fatalf("with tools: %v", err)
	}
	msg, err := bound.Generate(context.Background(), user(`#call add {"a":1,"b":2}`))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	var got []schema.FunctionCall
	for _, tc := range msg.ToolCalls {
		got = append(got, tc.Function)
	}
	want := []schema.FunctionCall{{Name: "add", Arguments: `{"a":1,"b":2}`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

func TestChatModelRejectsBadConfig(t *testing.T) {
	cases := []struct {
		name string
		m    llm.Model
	}{
		{"unknown provider", llm.Model{ID: "x", Provider: "claude", Model: "c"}},
		{"gemini without key", llm.Model{ID: "g", Provider: llm.ProviderGemini, Model: "gemini-x"}},
		{"gemini bad url", llm.Model{ID: "g", Provider: llm.ProviderGemini, Model: "m", APIKey: "k", BaseURL: "::"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provider.Factory{}.ChatModel(context.Background(), tc.m)
			if !errors.Is(err, errs.ErrInvalid) {
				t.Errorf("err = %v, want errs.ErrInvalid", err)
			}
		})
	}
}

// BenchmarkChatModel measures building a chat model per request, to decide
// whether clients need caching.
func BenchmarkChatModel(b *testing.B) {
	models := map[string]llm.Model{
		"openai": openAIModel("http://127.0.0.1:1/v1"),
		"gemini": {ID: "g", Provider: llm.ProviderGemini, Model: "gemini-x", APIKey: "k", BaseURL: "http://127.0.0.1:1"},
	}
	for name, m := range models {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (provider.Factory{}).ChatModel(context.Background(), m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// countingTransport counts the requests that pass through it.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func TestFactoryUsesHTTPClient(t *testing.T) {
	openAI := fakellm.Start(t)
	gem := newGeminiFake(t, textPart("pong"))
	for _, m := range []llm.Model{openAIModel(openAI.BaseURL()), geminiModel(gem.URL)} {
		t.Run(m.Provider, func(t *testing.T) {
			ct := &countingTransport{}
			f := provider.Factory{HTTPClient: &http.Client{Transport: ct}}
			cm, err := f.ChatModel(context.Background(), m)
			if err != nil {
				t.Fatalf("chat model: %v", err)
			}
			if _, err := cm.Generate(context.Background(), user("hi")); err != nil {
				t.Fatalf("generate: %v", err)
			}
			if ct.n.Load() != 1 {
				t.Errorf("transport saw %d requests, want 1", ct.n.Load())
			}
		})
	}
}
