package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 16: the named conversations of an app's end users, which
// conversation nodes create and use: one row per app, connector, end user
// and name, pointing at a conversation. Deleting the app or the
// conversation deletes the row.

// Snapshots of migration 16. Frozen.

type m0016AppConversation struct {
	AppID          int64              `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID    exactKey           `gorm:"primaryKey"`
	UserID         endUserKey         `gorm:"primaryKey"`
	Name           exactKey           `gorm:"primaryKey"`
	ConversationID int64              `gorm:"not null;index"`
	CreatedAt      time.Time          `gorm:"not null;precision:3"`
	App            *m0015App          `gorm:"foreignKey:AppID;constraint:OnDelete:CASCADE"`
	Conversation   *m0003Conversation `gorm:"foreignKey:ConversationID;constraint:OnDelete:CASCADE"`
}

func (m0016AppConversation) TableName() string { return "app_conversations" }

func up0016(tx *gorm.DB) error {
	return createTables(tx, &m0016AppConversation{})
}
