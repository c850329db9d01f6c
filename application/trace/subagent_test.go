package trace

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/application/chat"
)

// A sub-agent's turn is not a trace of its own: its root nests under the
// span of the caller's tool call that ran it.
func TestSubAgentTurnNestsUnderTheToolSpan(t *testing.T) {
	rec := &memRecorder{}
	c := NewChats(rec, nil)
	c.now = clock()
	ctx := context.Background()
	sub := chat.WithSubAgentCall(ctx, chat.SubAgentCall{ChatID: 9, CallID: "c1"})
	steps := []struct {
		ctx context.Context
		s   chat.Step
	}{
		{ctx, chat.Step{Kind: chat.StepTurnStart, ChatID: 9, BotID: 2}},
		{ctx, chat.Step{Kind: chat.StepToolCall, ChatID: 9, ToolName: "writer", ToolCallID: "c1", ToolOrigin: "sub_agent"}},
		{sub, chat.Step{Kind: chat.StepTurnStart, ChatID: 10, BotID: 3}},
		{sub, chat.Step{Kind: chat.StepToolCall, ChatID: 10, ToolName: "lookup", ToolCallID: "d1"}},
		{sub, chat.Step{Kind: chat.StepToolResult, ChatID: 10, ToolName: "lookup", ToolCallID: "d1", Text: "42"}},
		{sub, chat.Step{Kind: chat.StepTurnEnd, ChatID: 10, Text: "completed"}},
		{ctx, chat.Step{Kind: chat.StepToolResult, ChatID: 9, ToolName: "writer", ToolCallID: "c1", Text: "42"}},
		{ctx, chat.Step{Kind: chat.StepTurnEnd, ChatID: 9, Text: "completed"}},
	}
	for _, st := range steps {
		c.OnStep(st.ctx, st.s)
	}
	if len(rec.traces) != 1 || rec.traces[0].ID != 9 {
		t.Fatalf("traces = %+v, want the caller's alone", rec.traces)
	}
	tool := rec.traces[0].Root.Children[0]
	if len(tool.Children) != 1 || tool.Children[0].Attributes[AttrChatID] != "10" || len(tool.Children[0].Children) != 1 {
		t.Fatalf("tool span = %+v", tool)
	}
}
