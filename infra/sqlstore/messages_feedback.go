package sqlstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
)

var _ convapp.FeedbackLister = (*MessageStore)(nil)

// ListFeedback returns a page of a bot's answers that have feedback, the
// latest changed first, each with the question of its chat, and how many
// there are. It reaches the messages through the bot's conversations
// (ix_conversations_workspace_bot, then ix_messages_conversation), so it
// reads every message of the bot's conversations: there is no index on
// feedback, which is rare and read by builders only.
func (s *MessageStore) ListFeedback(ctx context.Context, workspaceID, botID int64, p identity.Page) ([]convapp.FeedbackItem, int64, error) {
	query := func() *gorm.DB {
		return s.db.gorm.WithContext(ctx).Model(&messageRow{}).
			Joins("JOIN conversations c ON c.id = messages.conversation_id").
			Where("c.workspace_id = ? AND c.bot_id = ? AND messages.feedback IS NOT NULL AND messages.hidden = ?", workspaceID, botID, false)
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count feedback: %w", err)
	}
	var rows []messageRow
	q := query().Select("messages.*").Order("messages.updated_at DESC, messages.id DESC")
	if err := page(q, p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list feedback: %w", err)
	}
	out := make([]convapp.FeedbackItem, len(rows))
	for i := range rows {
		m, err := messageFromRow(&rows[i])
		if err != nil {
			return nil, 0, err
		}
		out[i].Answer = *m
	}
	return out, total, s.addQuestions(ctx, out)
}

// addQuestions sets the question of each item's chat: the user's question
// message with the answer's conversation and chat, in one query.
func (s *MessageStore) addQuestions(ctx context.Context, items []convapp.FeedbackItem) error {
	var convs, chats []int64
	for _, it := range items {
		if it.Answer.ChatID != 0 {
			convs, chats = append(convs, it.Answer.ConversationID), append(chats, it.Answer.ChatID)
		}
	}
	if len(chats) == 0 {
		return nil
	}
	var rows []messageRow
	err := s.db.gorm.WithContext(ctx).Where("conversation_id IN ? AND chat_id IN ? AND role = ? AND type = ?",
		convs, chats, conversation.RoleUser, conversation.TypeQuestion).Order("id").Find(&rows).Error
	if err != nil {
		return fmt.Errorf("sqlstore: questions of feedback: %w", err)
	}
	byChat := map[[2]int64]*conversation.Message{}
	for i := range rows {
		m, err := messageFromRow(&rows[i])
		if err != nil {
			return err
		}
		if k := [2]int64{m.ConversationID, m.ChatID}; byChat[k] == nil {
			byChat[k] = m
		}
	}
	for i := range items {
		items[i].Question = byChat[[2]int64{items[i].Answer.ConversationID, items[i].Answer.ChatID}]
	}
	return nil
}
