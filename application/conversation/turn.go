package conversation

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// ConversationStore is what the use cases need of stored conversations:
// the domain's store, and the one read a chat turn starts with.
type ConversationStore interface {
	conversation.Store
	// ConversationTurn returns a conversation and the history of its
	// current section (as MessageStore.History does, each message with
	// only its id, role, type, content and content type) in one round
	// trip where the database has round trips, or errs.ErrNotFound.
	ConversationTurn(ctx context.Context, id int64, rounds int) (*conversation.Conversation, []conversation.Message, error)
}

// TurnQuery names the conversation of a chat turn.
type TurnQuery struct {
	ConversationID int64 // 0: open a new conversation of the bot
	BotID          int64
	// MemberOf is the bot's workspace when the caller was already found
	// to be a member of it (the chat runtime resolved the bot for this
	// caller), so the check is not asked again for a conversation there;
	// 0 checks membership here.
	MemberOf      int64
	ConnectorID   string // of a new conversation; DefaultConnector when empty
	HistoryRounds int    // how many rounds of history to return
}

// ResolveTurn is ResolveConversation for a chat turn, which also needs the
// history (each message with what a model is given: id, role, type,
// content, content type): an existing conversation and its history are
// read together,
// and the caller's membership is checked only when q.MemberOf does not
// vouch for the conversation's workspace. A new conversation has no
// history. Errors are ResolveConversation's.
func (s *Service) ResolveTurn(ctx context.Context, p identity.Principal, q TurnQuery) (*conversation.Conversation, []conversation.Message, error) {
	if q.ConversationID == 0 {
		c, err := s.openForTurn(ctx, p, q)
		return c, nil, err
	}
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, nil, err
	}
	c, history, err := s.convs.ConversationTurn(ctx, q.ConversationID, q.HistoryRounds)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, conversationNotFound(q.ConversationID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load conversation: %w", err)
	}
	if q.MemberOf == 0 || c.WorkspaceID != q.MemberOf {
		if err := s.member(ctx, p, c.WorkspaceID); errors.Is(err, errs.ErrForbidden) {
			return nil, nil, conversationNotFound(q.ConversationID)
		} else if err != nil {
			return nil, nil, err
		}
	}
	if c.BotID != 0 && c.BotID != q.BotID {
		return nil, nil, errs.Invalid("conversation_id", "conversation %d belongs to bot %d, not to bot %d", c.ID, c.BotID, q.BotID)
	}
	return c, history, nil
}

// openForTurn opens a new conversation of the bot, in the workspace
// q.MemberOf vouches for without looking the bot up again.
func (s *Service) openForTurn(ctx context.Context, p identity.Principal, q TurnQuery) (*conversation.Conversation, error) {
	if q.BotID == 0 {
		return nil, errs.Invalid("bot_id", "is required")
	}
	in := CreateInput{BotID: q.BotID, ConnectorID: q.ConnectorID}
	if q.MemberOf == 0 {
		return s.Create(ctx, p, in)
	}
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	return s.create(ctx, p, q.MemberOf, in)
}
