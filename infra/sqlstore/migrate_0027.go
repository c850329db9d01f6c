package sqlstore

import (
	"gorm.io/gorm"
)

// Migration 27 (bot_triggers): a trigger may run a chat turn of a bot
// instead of a workflow. bot_id is the bot (0 for a workflow trigger),
// prompt the end user's message of every turn, and the answer goes to
// channel_id's platform chat chat_id, or to the end user end_user in the
// trigger's conversation_id (opened by its first run). The bot is not a
// foreign key: a trigger whose bot is deleted stays, paused with the
// reason.

// Snapshot of migration 27. Frozen.

type m0027Trigger struct {
	BotID          int64  `gorm:"not null;default:0;index:ix_triggers_bot"`
	Prompt         string `gorm:"type:text;not null;default:''"`
	ChannelID      int64  `gorm:"not null;default:0"`
	ChatID         string `gorm:"size:200;not null;default:''"`
	EndUser        string `gorm:"size:128;not null;default:''"`
	ConversationID int64  `gorm:"not null;default:0"`
}

func (m0027Trigger) TableName() string { return "triggers" }

func up0027(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, col := range []string{"BotID", "Prompt", "ChannelID", "ChatID", "EndUser", "ConversationID"} {
		if m.HasColumn(&m0027Trigger{}, col) {
			continue
		}
		if err := m.AddColumn(&m0027Trigger{}, col); err != nil {
			return err
		}
	}
	if m.HasIndex(&m0027Trigger{}, "ix_triggers_bot") {
		return nil
	}
	return m.CreateIndex(&m0027Trigger{}, "ix_triggers_bot")
}
