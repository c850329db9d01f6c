package conversation

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Message list limits.
const (
	DefaultMessageLimit = 20
	MaxMessageLimit     = 50
)

// CreateMessage adds a message to the conversation's current section.
// Bad input fails with errs.ErrInvalid naming the field (role, type,
// content, content_type, meta_data).
func (s *Service) CreateMessage(ctx context.Context, p identity.Principal, conversationID int64, in MessageInput) (*conversation.Message, error) {
	if err := validateMessage("", in); err != nil {
		return nil, err
	}
	if err := s.limits.CheckText("content", in.Content); err != nil {
		return nil, err
	}
	c, err := s.conversation(ctx, p, conversationID)
	if err != nil {
		return nil, err
	}
	m := NewMessage(c, in)
	if err := s.msgs.CreateMessages(ctx, m); err != nil {
		return nil, storeErr("create message", err)
	}
	return m, nil
}

// ListMessages returns one page of the conversation's messages and whether
// more exist in the direction of travel; see conversation.MessageQuery.
// Order is desc (the default when empty) or asc, Limit 1 to 50; both fail
// with errs.ErrInvalid naming the field otherwise.
func (s *Service) ListMessages(ctx context.Context, p identity.Principal, conversationID int64, q conversation.MessageQuery) ([]conversation.Message, bool, error) {
	if q.Order == "" {
		q.Order = conversation.OrderDesc
	}
	if err := validateQuery(q); err != nil {
		return nil, false, err
	}
	if _, err := s.conversation(ctx, p, conversationID); err != nil {
		return nil, false, err
	}
	list, more, err := s.msgs.ListMessages(ctx, conversationID, q)
	return list, more, storeErr("list messages", err)
}

func validateQuery(q conversation.MessageQuery) error {
	switch {
	case q.Order != conversation.OrderDesc && q.Order != conversation.OrderAsc:
		return errs.Invalid("order", "must be asc or desc, got %q", q.Order)
	case q.Limit < 1 || q.Limit > MaxMessageLimit:
		return errs.Invalid("limit", "must be between 1 and %d, got %d", MaxMessageLimit, q.Limit)
	case q.BeforeID < 0:
		return errs.Invalid("before_id", "must be a message id")
	case q.AfterID < 0:
		return errs.Invalid("after_id", "must be a message id")
	case q.ChatID < 0:
		return errs.Invalid("chat_id", "must be a chat id")
	}
	return nil
}

// GetMessage returns a message of the conversation. Messages of chats run
// without saving history are not part of the conversation and are not
// found here.
func (s *Service) GetMessage(ctx context.Context, p identity.Principal, conversationID, messageID int64) (*conversation.Message, error) {
	if _, err := s.conversation(ctx, p, conversationID); err != nil {
		return nil, err
	}
	return s.visibleMessage(ctx, conversationID, messageID)
}

func (s *Service) visibleMessage(ctx context.Context, conversationID, messageID int64) (*conversation.Message, error) {
	m, err := s.msgs.GetMessage(ctx, conversationID, messageID)
	if err != nil {
		return nil, storeErr("get message", err)
	}
	if m.Hidden {
		return nil, messageNotFound(messageID)
	}
	return m, nil
}

// MessagePatch changes a message; nil fields are left as they are.
type MessagePatch struct {
	Content     *string
	ContentType *string
	MetaData    *map[string]string // replaces the whole map
}

// UpdateMessage changes a message's content, content type or meta data.
// The content is checked against the content type it ends up with.
func (s *Service) UpdateMessage(ctx context.Context, p identity.Principal, conversationID, messageID int64, patch MessagePatch) (*conversation.Message, error) {
	if patch.MetaData != nil {
		if err := validateMetaData("meta_data", *patch.MetaData); err != nil {
			return nil, err
		}
	}
	if patch.Content != nil {
		if err := s.limits.CheckText("content", *patch.Content); err != nil {
			return nil, err
		}
	}
	if _, err := s.conversation(ctx, p, conversationID); err != nil {
		return nil, err
	}
	m, err := s.msgs.UpdateMessage(ctx, conversationID, messageID, func(m *conversation.Message) error {
		if m.Hidden {
			return messageNotFound(messageID)
		}
		return patch.apply(m)
	})
	return m, storeErr("update message", err)
}

func (patch MessagePatch) apply(m *conversation.Message) error {
	content, contentType := m.Content, m.ContentType
	if patch.Content != nil {
		content = *patch.Content
	}
	if patch.ContentType != nil && *patch.ContentType != "" {
		contentType = *patch.ContentType
	}
	if patch.Content != nil || patch.ContentType != nil {
		if err := validateContent("", contentType, content); err != nil {
			return err
		}
	}
	m.Content, m.ContentType = content, contentType
	if patch.MetaData != nil {
		m.MetaData = *patch.MetaData
	}
	return nil
}

// DeleteMessage removes a message and returns it as it was.
func (s *Service) DeleteMessage(ctx context.Context, p identity.Principal, conversationID, messageID int64) (*conversation.Message, error) {
	if _, err := s.GetMessage(ctx, p, conversationID, messageID); err != nil {
		return nil, err
	}
	m, err := s.msgs.DeleteMessage(ctx, conversationID, messageID)
	return m, storeErr("delete message", err)
}

func messageNotFound(id int64) error {
	return errs.NotFound("message", strconv.FormatInt(id, 10))
}
