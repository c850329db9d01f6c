package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
)

// askTool asks the end user their name, as a workflow's question node
// does: the question streams as the answer and ends the turn.
type askTool struct{}

func (askTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "ask_name", Desc: "asks the user's name"}, nil
}

func (askTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	out, _ := OutputFrom(ctx)
	out.AnswerDelta("What is your name?")
	return "ASK:name", out.AnswerDirectly()
}

// askSource gives Writer (bot 21) the asking tool.
type askSource struct{}

func (askSource) BotTools(_ context.Context, b *bot.Bot, _ *bot.Config) ([]tool.BaseTool, error) {
	if b.ID == 21 {
		return []tool.BaseTool{askTool{}}, nil
	}
	return nil, nil
}

// askResumer resumes askTool's question with the answer.
type askResumer struct{}

func (askResumer) Asks(result string) bool { return strings.HasPrefix(result, "ASK:") }

func (askResumer) ResumeTool(_ context.Context, _ *bot.Bot, _, answer string) (string, bool, error) {
	return "name is " + answer, false, nil
}

// A question a sub-agent's tool asks reaches the end user as the parent's
// answer; the end user's next message resumes the sub-agent's tool in the
// sub-agent's conversation, and the parent goes on with its answer.
func TestSubAgentQuestionReachesTheEndUser(t *testing.T) {
	h, _, opener := subHarness(t, twoSubs, 0)
	h.svc.d.Tools = []ToolSource{askSource{}}
	h.svc.d.Resumer = subAgentResumer{s: h.svc, inner: askResumer{}}
	_, events := h.ask(t, `#call writer {"task":"#call ask_name {}"}`)
	if got := lastAnswer(events); got != "What is your name?" {
		t.Fatalf("first turn answered %q, want the sub-agent's question", got)
	}
	_, events = h.ask(t, "Ada")
	final := events[len(events)-2].Chat
	if got := lastAnswer(events); final.Status != "completed" || !strings.Contains(got, "name is Ada") || !strings.HasPrefix(got, "tool said: ") {
		t.Fatalf("second turn: %s %q", final.Status, got)
	}
	if len(opener.convs) != 1 {
		t.Fatalf("the answer opened another sub-agent conversation: %+v", opener.convs)
	}
}
