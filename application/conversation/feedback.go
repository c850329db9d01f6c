package conversation

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Feedback types and limits.
const (
	FeedbackLike   = "like"
	FeedbackUnlike = "unlike"

	maxReasonTypes = 10
	maxReasonLen   = 100
	maxCommentLen  = 1000
)

// FeedbackInput is an end user's judgement of an answer.
type FeedbackInput struct {
	Type        string // FeedbackLike or FeedbackUnlike
	ReasonTypes []string
	Comment     string
}

func (in FeedbackInput) validate() error {
	if in.Type != FeedbackLike && in.Type != FeedbackUnlike {
		return errs.Invalid("feedback_type", "must be like or unlike, got %q", in.Type)
	}
	if len(in.ReasonTypes) > maxReasonTypes {
		return errs.Invalid("reason_types", "must hold at most %d reasons, got %d", maxReasonTypes, len(in.ReasonTypes))
	}
	for i, r := range in.ReasonTypes {
		if n := utf8.RuneCountInString(strings.TrimSpace(r)); n == 0 || n > maxReasonLen {
			return errs.Invalid("reason_types", "item %d must be 1 to %d characters", i, maxReasonLen)
		}
	}
	if utf8.RuneCountInString(in.Comment) > maxCommentLen {
		return errs.Invalid("comment", "must be at most %d characters", maxCommentLen)
	}
	return nil
}

// SetFeedback records feedback on an answer, replacing any earlier one.
// Only assistant answers take feedback: any other message fails with
// errs.ErrInvalid naming message_id.
func (s *Service) SetFeedback(ctx context.Context, p identity.Principal, conversationID, messageID int64, in FeedbackInput) error {
	if err := in.validate(); err != nil {
		return err
	}
	return s.changeFeedback(ctx, p, conversationID, messageID, &conversation.Feedback{
		Type: in.Type, ReasonTypes: in.ReasonTypes, Comment: in.Comment, CreatedAt: s.now(),
	})
}

// DeleteFeedback removes the feedback on an answer; an answer without
// feedback is left as it is.
func (s *Service) DeleteFeedback(ctx context.Context, p identity.Principal, conversationID, messageID int64) error {
	return s.changeFeedback(ctx, p, conversationID, messageID, nil)
}

func (s *Service) changeFeedback(ctx context.Context, p identity.Principal, conversationID, messageID int64, f *conversation.Feedback) error {
	if _, err := s.conversation(ctx, p, conversationID); err != nil {
		return err
	}
	_, err := s.msgs.UpdateMessage(ctx, conversationID, messageID, func(m *conversation.Message) error {
		switch {
		case m.Hidden:
			return messageNotFound(messageID)
		case m.Role != conversation.RoleAssistant || m.Type != conversation.TypeAnswer:
			return errs.Invalid("message_id", "message %d is a %s %s; feedback applies to assistant answers only", messageID, m.Role, m.Type)
		}
		m.Feedback = f
		return nil
	})
	return storeErr("feedback", err)
}
