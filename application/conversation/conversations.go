package conversation

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

const maxNameLen = 200

// Get returns a conversation the caller may use, or errs.ErrNotFound
// "conversation <id> not found".
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*conversation.Conversation, error) {
	return s.conversation(ctx, p, id)
}

// List returns one page of a bot's conversations, newest first, and
// whether more follow. As in Coze the bot is required (errs.ErrInvalid
// naming bot_id); an unknown or unreachable bot gives errs.ErrNotFound.
func (s *Service) List(ctx context.Context, p identity.Principal, botID int64, page identity.Page) ([]conversation.Conversation, bool, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, false, err
	}
	if botID == 0 {
		return nil, false, errs.Invalid("bot_id", "is required")
	}
	ws, err := s.botWorkspace(ctx, p, botID)
	if err != nil {
		return nil, false, err
	}
	list, more, err := s.convs.ListConversations(ctx, ws, conversation.Filter{BotID: botID}, page)
	return list, more, storeErr("list conversations", err)
}

// Rename sets a conversation's name: 1 to 200 characters, surrounding
// spaces trimmed (errs.ErrInvalid naming name otherwise).
func (s *Service) Rename(ctx context.Context, p identity.Principal, id int64, name string) (*conversation.Conversation, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, errs.Invalid("name", "is required")
	}
	if utf8.RuneCountInString(name) > maxNameLen {
		return nil, errs.Invalid("name", "must be at most %d characters", maxNameLen)
	}
	c, err := s.conversation(ctx, p, id)
	if err != nil {
		return nil, err
	}
	c, err = s.convs.UpdateConversation(ctx, c.WorkspaceID, id, func(c *conversation.Conversation) error {
		c.Name = name
		return nil
	})
	return c, storeErr("rename conversation", err)
}

// Delete removes a conversation with its messages and chats.
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64) error {
	c, err := s.conversation(ctx, p, id)
	if err != nil {
		return err
	}
	return storeErr("delete conversation", s.convs.DeleteConversation(ctx, c.WorkspaceID, id))
}

// Clear starts a new section of the conversation and returns its id: the
// messages before stay listed but no longer reach the model.
func (s *Service) Clear(ctx context.Context, p identity.Principal, id int64) (int64, error) {
	c, err := s.conversation(ctx, p, id)
	if err != nil {
		return 0, err
	}
	section, err := s.convs.NewSection(ctx, c.WorkspaceID, id)
	return section, storeErr("clear conversation", err)
}
