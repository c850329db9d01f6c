package trace

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/bot"
)

type nopRecorder struct{}

func (nopRecorder) Record(*Trace) {}

// BenchmarkChatTurnHook is what tracing adds to a turn on its own path: a
// turn with two model calls (a 10-message prompt, 20 text deltas) and a
// tool call.
func BenchmarkChatTurnHook(b *testing.B) {
	c := NewChats(nopRecorder{}, nil)
	ctx := bot.WithRunScope(context.Background(), bot.RunScope{WorkspaceID: 1, ConversationID: 2})
	prompt := make([]*schema.Message, 10)
	for i := range prompt {
		prompt[i] = schema.UserMessage("a message of some ordinary length, about one sentence or two long.")
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := int64(i)
		c.OnStep(ctx, chat.Step{Kind: chat.StepTurnStart, ChatID: id})
		for m := 0; m < 2; m++ {
			c.OnStep(ctx, chat.Step{Kind: chat.StepModelStart, ChatID: id, ModelID: "m", Input: prompt})
			for d := 0; d < 20; d++ {
				c.OnStep(ctx, chat.Step{Kind: chat.StepTextDelta, ChatID: id, Text: "word "})
			}
			c.OnStep(ctx, chat.Step{Kind: chat.StepModelEnd, ChatID: id, ModelID: "m", Output: schema.AssistantMessage("answer", nil)})
		}
		c.OnStep(ctx, chat.Step{Kind: chat.StepToolCall, ChatID: id, ToolName: "t", ToolCallID: "c", Arguments: `{"a":1}`})
		c.OnStep(ctx, chat.Step{Kind: chat.StepToolResult, ChatID: id, ToolName: "t", ToolCallID: "c", Text: `{"ok":true}`})
		c.OnStep(ctx, chat.Step{Kind: chat.StepTurnEnd, ChatID: id, Text: "completed"})
	}
}
