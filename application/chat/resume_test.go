package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// askingTool asks the end user, as a workflow's question node does.
type askingTool struct{}

func (askingTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "order", Desc: "orders a shirt"}, nil
}

func (askingTool) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	out, _ := OutputFrom(ctx)
	out.AnswerDelta("Which size? 1. S 2. M")
	return "ask:size", out.AnswerDirectly()
}

type askingSource struct{}

func (askingSource) BotTools(context.Context, *bot.Bot, *bot.Config) ([]tool.BaseTool, error) {
	return []tool.BaseTool{askingTool{}}, nil
}

// sizeResumer answers the size question: 1 or 2.
type sizeResumer struct{ calls []string }

func (r *sizeResumer) Asks(result string) bool { return strings.HasPrefix(result, "ask:") }

func (r *sizeResumer) ResumeTool(_ context.Context, _ *bot.Bot, asked, answer string) (string, bool, error) {
	r.calls = append(r.calls, asked+"="+answer)
	switch answer {
	case "1":
		return `{"size":"S"}`, false, nil
	case "2":
		return `{"size":"M"}`, false, nil
	}
	return "", false, errs.Invalid("answer", "pick 1 or 2")
}

func TestAToolsQuestionIsAnsweredByTheNextMessage(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	res := &sizeResumer{}
	h.svc.d.Tools = []ToolSource{askingSource{}}
	h.svc.d.Resumer = res

	first, _ := h.ask(t, "#call order {}")
	if got := finalAnswer(t, h, first.ID); got != "Which size? 1. S 2. M" {
		t.Fatalf("the question = %q", got)
	}
	calls := len(h.llm.Requests())

	wrong, _ := h.ask(t, "banana")
	if got := finalAnswer(t, h, wrong.ID); !strings.Contains(got, "pick 1 or 2") || len(h.llm.Requests()) != calls {
		t.Fatalf("a wrong answer gave %q and %d model calls", got, len(h.llm.Requests())-calls)
	}

	right, _ := h.ask(t, "1")
	const toolSaid = `{"asked_user":[{"question":"Which size? 1. S 2. M","answer":"1"}],"result":{"size":"S"}}`
	if got := finalAnswer(t, h, right.ID); got != "tool said: "+toolSaid {
		t.Fatalf("after the answer = %q", got)
	}
	if strings.Join(res.calls, ",") != "ask:size=banana,ask:size=1" {
		t.Fatalf("resumer calls = %v", res.calls)
	}
	// The model continues from its own call of the tool, answered with the
	// tool's result and the end user's answer (the fake refuses any other
	// order, as OpenAI does).
	last := h.llm.Requests()[len(h.llm.Requests())-1]
	call, m := last.Messages[len(last.Messages)-2], last.Messages[len(last.Messages)-1]
	if m.Role != "tool" || m.Content != toolSaid || call.Role != "assistant" || len(call.ToolCalls) != 1 ||
		call.ToolCalls[0].ID != m.ToolCallID || call.ToolCalls[0].Function.Name != "order" {
		t.Fatalf("the model continued from %+v after %+v", m, call)
	}

	// The question is answered: the next message is an ordinary turn.
	after, _ := h.ask(t, "thanks")
	if got := finalAnswer(t, h, after.ID); got != "echo: thanks" || len(res.calls) != 2 {
		t.Fatalf("after the round: %q, resumer calls %v", got, res.calls)
	}
}
