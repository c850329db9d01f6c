package provider_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/provider"
)

func geminiModel(baseURL string) llm.Model {
	return llm.Model{ID: "g", Provider: llm.ProviderGemini, BaseURL: baseURL, APIKey: "gk", Model: "gemini-x"}
}

func newGemini(t *testing.T, baseURL string) model.ToolCallingChatModel {
	t.Helper()
	cm, err := provider.Factory{}.ChatModel(context.Background(), geminiModel(baseURL))
	if err != nil {
		t.Fatalf("chat model: %v", err)
	}
	return cm
}

func TestGeminiGenerate(t *testing.T) {
	f := newGeminiFake(t, textPart("pong"))
	msg, err := newGemini(t, f.URL).Generate(context.Background(),
		[]*schema.Message{schema.SystemMessage("be brief"), schema.UserMessage("hi")})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if msg.Role != schema.Assistant || msg.Content != "pong" {
		t.Errorf("message = %s %q, want assistant pong", msg.Role, msg.Content)
	}
	wantUsage := &schema.TokenUsage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7}
	if diff := cmp.Diff(wantUsage, msg.ResponseMeta.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	calls := f.recorded()
	if len(calls) != 1 {
		t.Fatalf("got %d requests", len(calls))
	}
	c := calls[0]
	if c.Version != "v1beta" || c.Model != "gemini-x" || c.Method != "generateContent" || c.APIKey != "gk" {
		t.Errorf("request = %+v", c)
	}
	wantContents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}}
	if diff := cmp.Diff(wantContents, c.Body["contents"]); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	if c.Body["systemInstruction"] == nil {
		t.Errorf("system message not sent as systemInstruction: %v", c.Body)
	}
}

func TestGeminiStream(t *testing.T) {
	f := newGeminiFake(t, textPart("po"), textPart("ng"))
	sr, err := newGemini(t, f.URL).Stream(context.Background(), []*schema.Message{schema.UserMessage("hi")})
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	msg, err := schema.ConcatMessageStream(sr)
	if err != nil {
		t.Fatalf("concat: %v", err)
	}
	if msg.Content != "pong" || msg.ResponseMeta.Usage == nil || msg.ResponseMeta.Usage.TotalTokens != 7 {
		t.Errorf("message = %q usage %+v", msg.Content, msg.ResponseMeta.Usage)
	}
	if c := f.recorded()[0]; c.Method != "streamGenerateContent" || c.Alt != "sse" {
		t.Errorf("request = %+v, want streamGenerateContent?alt=sse", c)
	}
}

func TestGeminiToolCall(t *testing.T) {
	f := newGeminiFake(t, map[string]any{"functionCall": map[string]any{"name": "add", "args": map[string]any{"a": 1, "b": 2}}})
	cm, err := newGemini(t, f.URL).WithTools([]*schema.ToolInfo{addTool})
	if err != nil {
		t.Fatalf("with tools: %v", err)
	}
	msg, err := cm.Generate(context.Background(), []*schema.Message{schema.UserMessage("add 1 and 2")})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	// The Gemini client encodes the arguments from a map: compare them as
	// JSON, not as text, whose key order varies.
	var args map[string]any
	if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "add" ||
		json.Unmarshal([]byte(msg.ToolCalls[0].Function.Arguments), &args) != nil || args["a"] != 1.0 || args["b"] != 2.0 || len(args) != 2 {
		t.Errorf("tool calls = %+v", msg.ToolCalls)
	}
	tools, _ := f.recorded()[0].Body["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools sent = %v", f.recorded()[0].Body["tools"])
	}
	decls, _ := tools[0].(map[string]any)["functionDeclarations"].([]any)
	if len(decls) != 1 || decls[0].(map[string]any)["name"] != "add" {
		t.Errorf("function declarations = %v", decls)
	}
}

func TestGeminiBaseURLVersion(t *testing.T) {
	f := newGeminiFake(t, textPart("pong"))
	cases := []struct{ suffix, wantVersion string }{
		{"", "v1beta"},
		{"/", "v1beta"},
		{"/v1beta", "v1beta"},
		{"/v1/", "v1"},
		{"/v1alpha", "v1alpha"},
	}
	for _, tc := range cases {
		t.Run(tc.suffix, func(t *testing.T) {
			if _, err := newGemini(t, f.URL+tc.suffix).Generate(context.Background(), user("hi")); err != nil {
				t.Fatalf("generate: %v", err)
			}
			calls := f.recorded()
			if got := calls[len(calls)-1].Version; got != tc.wantVersion {
				t.Errorf("version = %q, want %q", got, tc.wantVersion)
			}
		})
	}
}
