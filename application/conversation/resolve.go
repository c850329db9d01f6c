package conversation

import (
	"context"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// ResolveConversation returns the conversation a chat of botID runs in.
// A zero conversationID creates a new conversation bound to the bot, in
// its workspace, on connectorID (DefaultConnector when empty); the bot is
// required then (errs.ErrInvalid naming bot_id) and must be within the
// caller's reach (errs.ErrNotFound "bot <id> not found"). Otherwise the
// conversation is loaded and authorized like any other use case
// (errs.ErrNotFound "conversation <id> not found"), and when it is bound
// to a bot that bot must be botID (errs.ErrInvalid naming conversation_id).
// It does not check that the caller may use the bot of an existing
// conversation: the chat runtime authorizes the bot it loads.
func (s *Service) ResolveConversation(ctx context.Context, p identity.Principal, conversationID, botID int64, connectorID string) (*conversation.Conversation, error) {
	if conversationID == 0 {
		if botID == 0 {
			return nil, errs.Invalid("bot_id", "is required")
		}
		return s.Create(ctx, p, CreateInput{BotID: botID, ConnectorID: connectorID})
	}
	c, err := s.conversation(ctx, p, conversationID)
	if err != nil {
		return nil, err
	}
	if c.BotID != 0 && c.BotID != botID {
		return nil, errs.Invalid("conversation_id", "conversation %d belongs to bot %d, not to bot %d", c.ID, c.BotID, botID)
	}
	return c, nil
}
