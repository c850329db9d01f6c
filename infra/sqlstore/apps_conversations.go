package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/errs"
)

var _ app.Conversations = (*AppStore)(nil)

type appConversationRow struct {
	AppID          int64  `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID    string `gorm:"primaryKey"`
	UserID         string `gorm:"primaryKey"`
	Name           string `gorm:"primaryKey"`
	ConversationID int64
	CreatedAt      time.Time
}

func (appConversationRow) TableName() string { return "app_conversations" }

func (s *AppStore) scopedNames(ctx context.Context, sc app.Scope) *gorm.DB {
	return s.db.gorm.WithContext(ctx).Model(&appConversationRow{}).
		Where("app_id = ? AND connector_id = ? AND user_id = ?", sc.AppID, sc.ConnectorID, sc.UserID)
}

// ConversationID returns the conversation of that name, or 0.
func (s *AppStore) ConversationID(ctx context.Context, sc app.Scope, name string) (int64, error) {
	var rows []appConversationRow
	if err := s.scopedNames(ctx, sc).Where("name = ?", name).Limit(1).Find(&rows).Error; err != nil {
		return 0, fmt.Errorf("sqlstore: find app conversation: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	return rows[0].ConversationID, nil
}

// NameConversation names a conversation of the scope; errs.ErrConflict
// when the name is taken.
func (s *AppStore) NameConversation(ctx context.Context, sc app.Scope, name string, conversationID int64) error {
	row := appConversationRow{AppID: sc.AppID, ConnectorID: sc.ConnectorID, UserID: sc.UserID, Name: name,
		ConversationID: conversationID, CreatedAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Create(&row).Error
	switch {
	case err == nil:
		return nil
	case isDuplicate(err):
		return errs.Conflict("a conversation named %s exists", name)
	case isMissingParent(err):
		return appNotFound(sc.AppID)
	}
	return fmt.Errorf("sqlstore: name app conversation: %w", err)
}

// RenameConversation renames; errs.ErrConflict when newName is taken,
// errs.ErrNotFound when name is unknown.
func (s *AppStore) RenameConversation(ctx context.Context, sc app.Scope, name, newName string) error {
	res := s.scopedNames(ctx, sc).Where("name = ?", name).Update("name", newName)
	switch {
	case isDuplicate(res.Error):
		return errs.Conflict("a conversation named %s exists", newName)
	case res.Error != nil:
		return fmt.Errorf("sqlstore: rename app conversation: %w", res.Error)
	case res.RowsAffected == 0:
		return errs.NotFound("conversation", name)
	}
	return nil
}

// UnnameConversation forgets a name; the conversation stays.
func (s *AppStore) UnnameConversation(ctx context.Context, sc app.Scope, name string) error {
	if err := s.scopedNames(ctx, sc).Where("name = ?", name).Delete(&appConversationRow{}).Error; err != nil {
		return fmt.Errorf("sqlstore: unname app conversation: %w", err)
	}
	return nil
}

// NamedConversations lists the scope's conversations, oldest first.
func (s *AppStore) NamedConversations(ctx context.Context, sc app.Scope) ([]app.NamedConversation, error) {
	var rows []appConversationRow
	if err := s.scopedNames(ctx, sc).Order("created_at, conversation_id").Limit(1000).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list app conversations: %w", err)
	}
	out := make([]app.NamedConversation, len(rows))
	for i, r := range rows {
		out[i] = app.NamedConversation{Name: r.Name, ConversationID: r.ConversationID}
	}
	return out, nil
}
