package conversation

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
)

// FeedbackItem is an answer that has feedback, with the question of its
// chat (nil when the chat has no stored question, e.g. additional
// messages only).
type FeedbackItem struct {
	Answer   conversation.Message
	Question *conversation.Message
}

// FeedbackLister lists the answers of a bot that have feedback, newest
// feedback first, and how many there are. The message store implements
// it; it is kept out of conversation.MessageStore so that the stores and
// fakes that only chat need not.
type FeedbackLister interface {
	ListFeedback(ctx context.Context, workspaceID, botID int64, p identity.Page) ([]FeedbackItem, int64, error)
}

// errNoFeedbackList is returned when the message store cannot list.
var errNoFeedbackList = errors.New("conversation: the message store cannot list feedback")

// ListFeedback returns a page of the feedback end users gave a bot's
// answers, with the answers and their questions, newest first. The caller
// needs the bot scope and membership of the bot's workspace; another
// workspace's bot is errs.ErrNotFound, as an unknown one.
func (s *Service) ListFeedback(ctx context.Context, p identity.Principal, botID int64, page identity.Page) ([]FeedbackItem, int64, error) {
	if err := p.RequireScope(identity.ScopeBot); err != nil {
		return nil, 0, err
	}
	ws, err := s.botWorkspace(ctx, p, botID)
	if err != nil {
		return nil, 0, err
	}
	l, ok := s.msgs.(FeedbackLister)
	if !ok {
		return nil, 0, errNoFeedbackList
	}
	items, total, err := l.ListFeedback(ctx, ws, botID, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list feedback of bot %d: %w", botID, err)
	}
	return items, total, nil
}
