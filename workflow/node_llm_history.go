package workflow

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"
)

// Chat history of llm nodes, as Coze gives it in chatflows: a node with
// chat_history_rounds set gets the last rounds of the run's conversation
// (its questions and answers before the message that started this turn)
// between its system prompt and its user prompt. Runs that are no
// conversation's turn have none.

// MaxChatHistoryRounds bounds chat_history_rounds.
const MaxChatHistoryRounds = 50

// ChatHistorian reads the history of a chatflow run's conversation; the
// ConversationStore may implement it.
type ChatHistorian interface {
	// ChatHistory returns the last rounds of s.ConversationID before its
	// unanswered last question, oldest first.
	ChatHistory(ctx context.Context, s Scope, rounds int) ([]ConversationMessage, error)
}

func (c *checker) checkChatHistory(n *Node, rounds int) {
	if rounds < 0 || rounds > MaxChatHistoryRounds {
		c.fail(nodeField(n, "config.chat_history_rounds"), "must be between 0 (no history) and %d", MaxChatHistoryRounds)
	}
}

// chatHistory returns the node's history messages; none outside a
// conversation.
func (r *llmRunner) chatHistory(ctx context.Context, x *nodeCtx) ([]*schema.Message, error) {
	s := x.rc.in.Scope
	if r.cfg.ChatHistoryRounds == 0 || s.ConversationID == 0 {
		return nil, nil
	}
	h, ok := x.rc.eng.ports.Convs.(ChatHistorian)
	if !ok {
		return nil, nil
	}
	msgs, err := h.ChatHistory(ctx, s, r.cfg.ChatHistoryRounds)
	if err != nil {
		return nil, fmt.Errorf("chat history: %w", err)
	}
	out := make([]*schema.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "assistant" {
			out = append(out, schema.AssistantMessage(m.Content, nil))
		} else {
			out = append(out, schema.UserMessage(m.Content))
		}
	}
	return out, nil
}
