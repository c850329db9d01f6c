package sqlstore

import (
	"context"
	"fmt"
)

// SetActiveBot records the bot a conversation was handed to (0: its own
// bot again) in one UPDATE of the workspace's conversation. It returns
// errs.ErrNotFound when the workspace has no such conversation.
func (s *ConversationStore) SetActiveBot(ctx context.Context, workspaceID, id, botID int64) error {
	res := s.db.gorm.WithContext(ctx).Model(&conversationRow{}).Where("workspace_id = ? AND id = ?", workspaceID, id).
		Updates(map[string]any{"active_bot_id": botID, "updated_at": s.db.timestamp()})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: set active bot: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return conversationNotFound(id)
	}
	return nil
}
