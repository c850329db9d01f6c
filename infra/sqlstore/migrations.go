package sqlstore

import (
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// migration is one step of the schema. Up runs inside a transaction; on
// MySQL each DDL statement commits on its own, so Up must be safe to run
// again after it failed half-way (create only what is missing).
type migration struct {
	Version int
	Name    string
	Up      func(tx *gorm.DB) error
}

// migrations lists every step, oldest first. Append only: a released
// migration and the struct snapshots it uses are never edited, because a
// database that already ran it will not run it again.
func migrations() []migration {
	return []migration{
		{Version: 1, Name: "identity_and_models", Up: up0001},
		{Version: 2, Name: "bots_and_variables", Up: up0002},
		{Version: 3, Name: "conversations", Up: up0003},
		{Version: 4, Name: "plugins", Up: up0004},
		{Version: 5, Name: "tables", Up: up0005},
		{Version: 6, Name: "workflows", Up: up0006},
		{Version: 7, Name: "workflow_checkpoints", Up: up0007},
		{Version: 8, Name: "exact_end_user_ids", Up: up0008},
		{Version: 9, Name: "chat_recovery", Up: up0009},
		{Version: 10, Name: "channels", Up: up0010},
		{Version: 11, Name: "channel_events", Up: up0011},
		{Version: 12, Name: "channel_event_parts", Up: up0012},
		{Version: 13, Name: "workflow_run_nodes", Up: up0013},
		{Version: 14, Name: "usage_indexes", Up: up0014},
		{Version: 15, Name: "apps", Up: up0015},
		{Version: 16, Name: "app_conversations", Up: up0016},
		{Version: 17, Name: "files", Up: up0017},
		{Version: 18, Name: "traces", Up: up0018},
		{Version: 19, Name: "app_conversation_templates", Up: up0019},
		{Version: 20, Name: "workflow_run_conversations", Up: up0020},
		{Version: 21, Name: "model_kinds", Up: up0021},
		{Version: 22, Name: "knowledge", Up: up0022},
		{Version: 23, Name: "channel_event_retries", Up: up0023},
		{Version: 24, Name: "triggers", Up: up0024},
		{Version: 25, Name: "conversation_active_bot", Up: up0025},
		{Version: 26, Name: "sub_agent_conversations", Up: up0026},
		{Version: 27, Name: "bot_triggers", Up: up0027},
	}
}

// mysqlTableOptions is passed to every CREATE TABLE on MySQL.
const mysqlTableOptions = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci"

// createTables creates the tables of models that do not exist yet.
func createTables(tx *gorm.DB, models ...any) error {
	if tx.Dialector.Name() == DialectMySQL {
		tx = tx.Set("gorm:table_options", mysqlTableOptions)
	}
	for _, m := range models {
		if tx.Migrator().HasTable(m) {
			continue
		}
		if err := tx.Migrator().CreateTable(m); err != nil {
			return err
		}
	}
	return nil
}

// caseFoldText is a string column compared without regard to case on both
// dialects (MySQL's unicode_ci collation, SQLite's NOCASE), so a unique
// e-mail means the same thing everywhere. Frozen: migrations use it.
type caseFoldText string

// GormDBDataType gives the column type per dialect.
func (caseFoldText) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == DialectSQLite {
		return "text COLLATE NOCASE"
	}
	return "varchar(254)"
}

// exactKey is a string key compared byte for byte on both dialects.
// Frozen: migrations use it.
type exactKey string

// GormDBDataType gives the column type per dialect.
func (exactKey) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == DialectSQLite {
		return "text"
	}
	return "varchar(64) COLLATE utf8mb4_bin"
}

// Snapshots of migration 1. Frozen.

type m0001User struct {
	ID           int64        `gorm:"primaryKey;autoIncrement:false"`
	Email        caseFoldText `gorm:"not null;uniqueIndex:ux_users_email"`
	Name         string       `gorm:"size:200;not null"`
	PasswordHash string       `gorm:"size:255;not null"`
	IsAdmin      bool         `gorm:"not null"`
	Disabled     bool         `gorm:"not null"`
	CreatedAt    time.Time    `gorm:"not null;precision:3"`
	UpdatedAt    time.Time    `gorm:"not null;precision:3"`
}

func (m0001User) TableName() string { return "users" }

type m0001Workspace struct {
	ID          int64      `gorm:"primaryKey;autoIncrement:false"`
	Name        string     `gorm:"size:200;not null"`
	Description string     `gorm:"type:text;not null"`
	Kind        string     `gorm:"size:16;not null"`
	OwnerID     int64      `gorm:"not null;index:ix_workspaces_owner"`
	CreatedAt   time.Time  `gorm:"not null;precision:3"`
	UpdatedAt   time.Time  `gorm:"not null;precision:3"`
	Owner       *m0001User `gorm:"foreignKey:OwnerID"`
}

func (m0001Workspace) TableName() string { return "workspaces" }

type m0001Member struct {
	WorkspaceID int64           `gorm:"primaryKey;autoIncrement:false"`
	UserID      int64           `gorm:"primaryKey;autoIncrement:false;index:ix_workspace_members_user"`
	Role        string          `gorm:"size:16;not null"`
	CreatedAt   time.Time       `gorm:"not null;precision:3"`
	Workspace   *m0001Workspace `gorm:"foreignKey:WorkspaceID"`
	User        *m0001User      `gorm:"foreignKey:UserID"`
}

func (m0001Member) TableName() string { return "workspace_members" }

type m0001Token struct {
	ID           int64      `gorm:"primaryKey;autoIncrement:false"`
	UserID       int64      `gorm:"not null;index:ix_tokens_user"`
	Kind         string     `gorm:"size:16;not null"`
	Name         string     `gorm:"size:200;not null"`
	Hash         string     `gorm:"size:64;not null;uniqueIndex:ux_tokens_hash"`
	Hint         string     `gorm:"size:32;not null"`
	Scopes       string     `gorm:"type:text;not null"` // JSON array of strings
	WorkspaceIDs string     `gorm:"type:text;not null"` // JSON array of numbers
	ExpiresAt    *time.Time `gorm:"precision:3"`
	RevokedAt    *time.Time `gorm:"precision:3"`
	LastUsedAt   *time.Time `gorm:"precision:3"`
	CreatedAt    time.Time  `gorm:"not null;precision:3"`
	User         *m0001User `gorm:"foreignKey:UserID"`
}

func (m0001Token) TableName() string { return "tokens" }

type m0001Model struct {
	ID            exactKey  `gorm:"primaryKey"`
	Name          string    `gorm:"size:200;not null"`
	Provider      string    `gorm:"size:32;not null"`
	BaseURL       string    `gorm:"size:1000;not null"`
	APIKey        string    `gorm:"type:text;not null"` // sealed by the Cipher
	APIKeyEnv     string    `gorm:"size:200;not null"`
	Model         string    `gorm:"size:200;not null"`
	Capabilities  string    `gorm:"type:text;not null"` // JSON object
	ContextWindow int       `gorm:"not null"`
	Enabled       bool      `gorm:"not null"`
	Source        string    `gorm:"size:16;not null"`
	CreatedAt     time.Time `gorm:"not null;precision:3"`
	UpdatedAt     time.Time `gorm:"not null;precision:3"`
}

func (m0001Model) TableName() string { return "models" }

func up0001(tx *gorm.DB) error {
	return createTables(tx, &m0001User{}, &m0001Workspace{}, &m0001Member{}, &m0001Token{}, &m0001Model{})
}
