package chat

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Get returns a chat, for polling.
func (s *Service) Get(ctx context.Context, p identity.Principal, conversationID, chatID int64) (*conversation.Chat, error) {
	return s.load(ctx, p, conversationID, chatID)
}

// Messages returns what the bot said in a chat: answers, tool calls and
// their results, follow-ups; not the user's question.
func (s *Service) Messages(ctx context.Context, p identity.Principal, conversationID, chatID int64) ([]conversation.Message, error) {
	if _, err := s.load(ctx, p, conversationID, chatID); err != nil {
		return nil, err
	}
	all, err := s.d.Messages.ListChatMessages(ctx, conversationID, chatID)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, m := range all {
		if m.Role == conversation.RoleAssistant && m.Type != conversation.TypeToolOutput {
			out = append(out, m)
		}
	}
	return out, nil
}

// Cancel stops a chat that is running or waiting for tool outputs, in
// whichever process runs it. A finished chat answers ErrConflict.
func (s *Service) Cancel(ctx context.Context, p identity.Principal, conversationID, chatID int64) (*conversation.Chat, error) {
	if _, err := s.load(ctx, p, conversationID, chatID); err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	chat, err := s.d.Chats.UpdateChat(ctx, conversationID, chatID, func(c *conversation.Chat) error {
		if c.Status.Terminal() {
			return errs.Conflict("chat %d is already %s", c.ID, c.Status)
		}
		c.Status = conversation.ChatCanceled
		c.CompletedAt = &now
		c.RequiredAction = nil
		c.State = nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !s.cancelLocal(chatID) && s.d.Broadcaster != nil {
		if err := s.d.Broadcaster.Publish(ctx, cancelChannel, []byte(strconv.FormatInt(chatID, 10))); err != nil {
			s.d.Log.WarnContext(ctx, "chat: broadcast cancel", "chat_id", chatID, "err", err)
		}
	}
	return chat, nil
}

// cancelLocal stops a run of this process; it reports whether there was one.
func (s *Service) cancelLocal(chatID int64) bool {
	s.mu.Lock()
	cancel, ok := s.running[chatID]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// Listen stops the local runs other processes cancel, until ctx ends.
func (s *Service) Listen(ctx context.Context) error {
	if s.d.Broadcaster == nil {
		return nil
	}
	sub, err := s.d.Broadcaster.Subscribe(ctx, cancelChannel)
	if err != nil {
		return err
	}
	go func() {
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case msg, ok := <-sub.C():
				if !ok {
					return
				}
				if id, err := strconv.ParseInt(string(msg), 10, 64); err == nil {
					s.cancelLocal(id)
				}
			}
		}
	}()
	return nil
}
