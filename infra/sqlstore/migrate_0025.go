package sqlstore

import "gorm.io/gorm"

// Migration 25 (conversation_active_bot): active_bot_id is the bot a
// conversation was handed to, which answers its turns until it hands the
// conversation back or on; 0 is the conversation's own bot.

// Snapshot of migration 25. Frozen.

type m0025Conversation struct {
	ActiveBotID int64 `gorm:"not null;default:0"`
}

func (m0025Conversation) TableName() string { return "conversations" }

func up0025(tx *gorm.DB) error {
	if tx.Migrator().HasColumn(&m0025Conversation{}, "ActiveBotID") {
		return nil
	}
	return tx.Migrator().AddColumn(&m0025Conversation{}, "ActiveBotID")
}
