package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/provider"
)

// answeringTool answers for the bot, as a workflow returning text does.
type answeringTool struct{}

func (answeringTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "report", Desc: "writes the report"}, nil
}

func (answeringTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	out, ok := OutputFrom(ctx)
	if !ok {
		return "", nil
	}
	out.Message("working on it")
	out.AnswerDelta("hello ")
	out.AnswerDelta("world")
	return "hello world", out.AnswerDirectly()
}

type answeringSource struct{}

func (answeringSource) BotTools(context.Context, *bot.Bot, *bot.Config) ([]tool.BaseTool, error) {
	return []tool.BaseTool{answeringTool{}}, nil
}

func TestAToolCanAnswerForTheBot(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	h.svc.d.Tools = []ToolSource{answeringSource{}}
	chat, events := h.ask(t, "#call report {}")
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was called %d times; the tool's answer should end the turn", n)
	}
	var deltas []string
	for _, e := range events {
		if e.Kind == EventMessageDelta {
			deltas = append(deltas, e.Message.Content)
		}
	}
	if d := cmp.Diff([]string{"hello ", "world"}, deltas); d != "" {
		t.Fatalf("streamed (-want +got):\n%s", d)
	}
	stored, _ := h.store.ListChatMessages(context.Background(), 11, chat.ID)
	var got []string
	for _, m := range stored {
		got = append(got, m.Type+":"+m.Content)
	}
	want := []string{"question:#call report {}", `function_call:{"arguments":{},"id":`, "answer:working on it", "answer:hello world", "verbose:"}
	if len(got) != len(want) {
		t.Fatalf("messages = %v", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("message %d = %q, want prefix %q (all: %v)", i, got[i], want[i], got)
		}
	}
	if events[len(events)-2].Chat.Status != conversation.ChatCompleted {
		t.Fatalf("status = %s", events[len(events)-2].Chat.Status)
	}
}

// modelTool calls a model of its own, as a workflow's LLM node does.
type modelTool struct{ url string }

func (modelTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "inner", Desc: "asks another model"}, nil
}

func (m modelTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	cm, err := provider.Factory{}.ChatModel(ctx, llm.Model{ID: "inner", Provider: llm.ProviderOpenAI, BaseURL: m.url, APIKey: "k", Model: "fake"})
	if err != nil {
		return "", err
	}
	sr, err := cm.Stream(ctx, []*schema.Message{schema.UserMessage("inner secret")})
	if err != nil {
		return "", err
	}
	msg, err := schema.ConcatMessageStream(sr)
	if err != nil {
		return "", err
	}
	return "inner said " + msg.Content, nil
}

type modelToolSource struct{ url string }

func (s modelToolSource) BotTools(context.Context, *bot.Bot, *bot.Config) ([]tool.BaseTool, error) {
	return []tool.BaseTool{modelTool{url: s.url}}, nil
}

// TestAToolsOwnModelDoesNotSpeakForTheBot: a model a tool calls is not
// streamed as the bot's answer.
func TestAToolsOwnModelDoesNotSpeakForTheBot(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	h.svc.d.Tools = []ToolSource{modelToolSource{url: h.llm.BaseURL()}}
	chat, events := h.ask(t, "#call inner {}")
	for _, e := range events {
		if e.Message != nil && strings.Contains(e.Message.Content, "echo: inner secret") && e.Message.Type == conversation.TypeAnswer &&
			!strings.HasPrefix(e.Message.Content, "tool said") {
			t.Fatalf("the tool's own model spoke in the chat: %+v", e.Message)
		}
	}
	if got := finalAnswer(t, h, chat.ID); got != "tool said: inner said echo: inner secret" {
		t.Fatalf("answer = %q", got)
	}
}
