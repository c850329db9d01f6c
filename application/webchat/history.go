package webchat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// HistoryLimit is how many of the latest messages History returns.
const HistoryLimit = 50

// Said is one message of an end user's conversation as the page shows it.
type Said struct {
	ID        int64
	Role      string // conversation.RoleUser or RoleAssistant
	Content   string
	CreatedAt time.Time
}

// History returns the latest questions and answers of the end user's
// current conversation on c, oldest first; none before the first message
// or after a Reset. Errors as Identify and Serving.
func (s *Service) History(ctx context.Context, c *channel.Channel, token string) ([]Said, error) {
	eu, err := s.Identify(c, token)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.Serving(ctx, c); err != nil {
		return nil, err
	}
	convID, err := s.d.Events.Conversation(ctx, c.ID, eu.ID)
	if err != nil || convID == 0 {
		return []Said{}, err
	}
	list, _, err := s.d.Messages.ListMessages(ctx, convID, conversation.MessageQuery{Order: conversation.OrderDesc, Limit: HistoryLimit})
	if err != nil {
		return nil, fmt.Errorf("web chat history: %w", err)
	}
	out := make([]Said, 0, len(list))
	for _, m := range slices.Backward(list) {
		if m.Type == conversation.TypeQuestion || m.Type == conversation.TypeAnswer {
			out = append(out, Said{ID: m.ID, Role: m.Role, Content: m.Content, CreatedAt: m.CreatedAt})
		}
	}
	return out, nil
}

// Reset starts the end user's next message in a new conversation; the
// old one stays stored with the bot. Errors as Identify and Serving.
func (s *Service) Reset(ctx context.Context, c *channel.Channel, token string) error {
	eu, err := s.Identify(c, token)
	if err != nil {
		return err
	}
	if _, _, err := s.Serving(ctx, c); err != nil {
		return err
	}
	cur, err := s.d.Events.Conversation(ctx, c.ID, eu.ID)
	if err != nil || cur == 0 {
		return err
	}
	if _, err := s.d.Events.RebindConversation(ctx, c.ID, eu.ID, cur, 0); err != nil {
		return fmt.Errorf("web chat reset: %w", err)
	}
	return nil
}
