package app

import (
	"context"
	"errors"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	wf "github.com/pergola-ai/pergola/workflow"
)

// History returns the last rounds of the current section, oldest first.
func (c Conversations) History(ctx context.Context, s wf.Scope, name string, rounds int) ([]wf.ConversationMessage, error) {
	conv, err := c.find(ctx, s, name)
	if conv == nil || err != nil {
		return []wf.ConversationMessage{}, err
	}
	msgs, err := c.d.Msgs.History(ctx, conv.ID, conv.SectionID, min(max(rounds, 1), 50))
	return nodeMessages(msgs), err
}

// ListMessages lists messages newest first.
func (c Conversations) ListMessages(ctx context.Context, s wf.Scope, name string, q wf.MessagePage) ([]wf.ConversationMessage, bool, error) {
	conv, err := c.find(ctx, s, name)
	if conv == nil || err != nil {
		return []wf.ConversationMessage{}, false, err
	}
	msgs, more, err := c.d.Msgs.ListMessages(ctx, conv.ID, conversation.MessageQuery{Order: conversation.OrderDesc,
		BeforeID: q.AfterID, AfterID: q.BeforeID, Limit: q.Limit})
	return nodeMessages(msgs), more, err
}

// CreateMessage adds a user question or an assistant answer.
func (c Conversations) CreateMessage(ctx context.Context, s wf.Scope, name, role, content string) (wf.ConversationMessage, bool, error) {
	conv, err := c.find(ctx, s, name)
	if conv == nil || err != nil {
		return wf.ConversationMessage{}, false, err
	}
	typ := conversation.TypeQuestion
	if role == conversation.RoleAssistant {
		typ = conversation.TypeAnswer
	}
	m := &conversation.Message{WorkspaceID: conv.WorkspaceID, ConversationID: conv.ID, SectionID: conv.SectionID,
		Role: role, Type: typ, Content: content, ContentType: conversation.ContentText}
	if err := c.d.Msgs.CreateMessages(ctx, m); err != nil {
		return wf.ConversationMessage{}, false, err
	}
	return wf.ConversationMessage{ID: m.ID, Role: role, Content: content}, true, nil
}

// EditMessage replaces a message's content.
func (c Conversations) EditMessage(ctx context.Context, s wf.Scope, name string, id int64, content string) (bool, error) {
	conv, err := c.find(ctx, s, name)
	if conv == nil || err != nil {
		return false, err
	}
	_, err = c.d.Msgs.UpdateMessage(ctx, conv.ID, id, func(m *conversation.Message) error {
		m.Content = content
		return nil
	})
	return found(err)
}

// DeleteMessage removes a message.
func (c Conversations) DeleteMessage(ctx context.Context, s wf.Scope, name string, id int64) (bool, error) {
	conv, err := c.find(ctx, s, name)
	if conv == nil || err != nil {
		return false, err
	}
	_, err = c.d.Msgs.DeleteMessage(ctx, conv.ID, id)
	return found(err)
}

// found turns errs.ErrNotFound into false.
func found(err error) (bool, error) {
	if errors.Is(err, errs.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func nodeMessages(msgs []conversation.Message) []wf.ConversationMessage {
	out := make([]wf.ConversationMessage, len(msgs))
	for i, m := range msgs {
		out[i] = wf.ConversationMessage{ID: m.ID, Role: m.Role, Content: m.Content}
	}
	return out
}
