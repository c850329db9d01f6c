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
