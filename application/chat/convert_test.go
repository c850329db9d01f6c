package chat

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// TestHistoryLeavesOutEmptyTexts: an empty answer kept in the history
// would reach the model as an assistant message without content, which
// OpenAI refuses with 400 on the next turn.
func TestHistoryLeavesOutEmptyTexts(t *testing.T) {
	msgs := []conversation.Message{
		{Role: conversation.RoleUser, Type: conversation.TypeQuestion, Content: "hi"},
		{Role: conversation.RoleAssistant, Type: conversation.TypeAnswer, Content: ""},
		{Role: conversation.RoleUser, Type: conversation.TypeQuestion, Content: "  "},
		{Role: conversation.RoleAssistant, Type: conversation.TypeAnswer, Content: "hello"},
	}
	got := toModel(msgs)
	if len(got) != 2 || got[0].Role != schema.User || got[0].Content != "hi" || got[1].Role != schema.Assistant || got[1].Content != "hello" {
		t.Fatalf("history %v, want the question hi and the answer hello", got)
	}
}
