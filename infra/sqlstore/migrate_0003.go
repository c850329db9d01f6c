package sqlstore

import (
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// Migration 3: conversations, their messages and the chats run over them.
// Bots are referred to by id only: the bots table belongs to another
// migration and a conversation outlives a deleted bot.

// m0003LongText is a text column that holds up to 4 GiB on MySQL (a plain
// TEXT stops at 64 KiB, too little for long answers). Frozen.
type m0003LongText string

// GormDBDataType gives the column type per dialect.
func (m0003LongText) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == DialectSQLite {
		return "text"
	}
	return "longtext"
}

// m0003LongBlob is a binary column of up to 4 GiB on MySQL. Frozen.
type m0003LongBlob []byte

// GormDBDataType gives the column type per dialect.
func (m0003LongBlob) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == DialectSQLite {
		return "blob"
	}
	return "longblob"
}

// m0003JSON is a JSON document: MySQL's JSON type (checked by the server),
// plain text on SQLite. Frozen.
type m0003JSON string

// GormDBDataType gives the column type per dialect.
func (m0003JSON) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == DialectSQLite {
		return "text"
	}
	return "json"
}

// Snapshots of migration 3. Frozen.

type m0003Conversation struct {
	ID          int64     `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64     `gorm:"not null;index:ix_conversations_workspace_bot,priority:1"`
	BotID       int64     `gorm:"not null;index:ix_conversations_workspace_bot,priority:2"`
	CreatorID   int64     `gorm:"not null"`
	ConnectorID string    `gorm:"size:64;not null"`
	Name        string    `gorm:"size:200;not null"`
	Meta        m0003JSON `gorm:"not null"`
	SectionID   int64     `gorm:"not null"`
	CreatedAt   time.Time `gorm:"not null;precision:3"`
	UpdatedAt   time.Time `gorm:"not null;precision:3"`
}

func (m0003Conversation) TableName() string { return "conversations" }

type m0003Message struct {
	ID               int64         `gorm:"primaryKey;autoIncrement:false;index:ix_messages_conversation,priority:2;index:ix_messages_section,priority:3"`
	WorkspaceID      int64         `gorm:"not null"`
	ConversationID   int64         `gorm:"not null;index:ix_messages_conversation,priority:1;index:ix_messages_chat,priority:1;index:ix_messages_section,priority:1"`
	SectionID        int64         `gorm:"not null;index:ix_messages_section,priority:2"`
	BotID            int64         `gorm:"not null"`
	ChatID           int64         `gorm:"not null;index:ix_messages_chat,priority:2"`
	Role             string        `gorm:"size:16;not null"`
	Type             string        `gorm:"size:32;not null"`
	Content          m0003LongText `gorm:"not null"`
	ContentType      string        `gorm:"size:32;not null"`
	ReasoningContent m0003LongText `gorm:"not null"`
	Meta             m0003JSON     `gorm:"not null"`
	Hidden           bool          `gorm:"not null"`
	Feedback         *m0003JSON
	CreatedAt        time.Time `gorm:"not null;precision:3"`
	UpdatedAt        time.Time `gorm:"not null;precision:3"`
}

func (m0003Message) TableName() string { return "messages" }

type m0003Chat struct {
	ID             int64  `gorm:"primaryKey;autoIncrement:false;index:ix_chats_conversation,priority:2"`
	WorkspaceID    int64  `gorm:"not null"`
	ConversationID int64  `gorm:"not null;index:ix_chats_conversation,priority:1"`
	SectionID      int64  `gorm:"not null"`
	BotID          int64  `gorm:"not null"`
	BotVersion     int64  `gorm:"not null"`
	UserID         string `gorm:"size:255;not null"`
	ConnectorID    string `gorm:"size:64;not null"`
	Status         string `gorm:"size:32;not null"`
	InputTokens    int64  `gorm:"not null"`
	OutputTokens   int64  `gorm:"not null"`
	LastError      *m0003JSON
	RequiredAction *m0003JSON
	Meta           m0003JSON `gorm:"not null"`
	State          m0003LongBlob
	CreatedAt      time.Time  `gorm:"not null;precision:3"`
	CompletedAt    *time.Time `gorm:"precision:3"`
	FailedAt       *time.Time `gorm:"precision:3"`
}

func (m0003Chat) TableName() string { return "chats" }

func up0003(tx *gorm.DB) error {
	return createTables(tx, &m0003Conversation{}, &m0003Message{}, &m0003Chat{})
}
