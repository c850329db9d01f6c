package sqlstore

import "gorm.io/gorm"

// Migration 26: the conversation a sub-agent runs in names the
// conversation of the bot that called it (0 for others), so a builder can
// follow a turn into its sub-agents (ix_conversations_parent).

// Snapshot of migration 26. Frozen.

type m0026Conversation struct {
	ParentConversationID int64 `gorm:"not null;default:0;index:ix_conversations_parent"`
}

func (m0026Conversation) TableName() string { return "conversations" }

func up0026(tx *gorm.DB) error {
	m := tx.Migrator()
	if !m.HasColumn(&m0026Conversation{}, "ParentConversationID") {
		if err := m.AddColumn(&m0026Conversation{}, "ParentConversationID"); err != nil {
			return err
		}
	}
	if m.HasIndex(&m0026Conversation{}, "ix_conversations_parent") {
		return nil
	}
	return m.CreateIndex(&m0026Conversation{}, "ix_conversations_parent")
}
