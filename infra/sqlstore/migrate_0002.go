package sqlstore

import (
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
)

// jsonDoc is a JSON document column: TEXT on SQLite, LONGTEXT on MySQL,
// because a bot configuration with a long persona prompt and many tool
// schemas can pass the 64 KiB of a MySQL TEXT. Frozen: migrations use it.
type jsonDoc string

// GormDBDataType gives the column type per dialect.
func (jsonDoc) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == DialectSQLite {
		return "text"
	}
	return "longtext"
}

// endUserKey is an end user's id on a channel (Coze's connector_uid),
// compared byte for byte; channels use ids longer than exactKey allows.
// Frozen: migrations use it.
type endUserKey string

// GormDBDataType gives the column type per dialect.
func (endUserKey) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	if db.Dialector.Name() == DialectSQLite {
		return "text"
	}
	return "varchar(255) COLLATE utf8mb4_bin"
}

// Snapshots of migration 2. Frozen.

type m0002Bot struct {
	ID               int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID      int64           `gorm:"not null;index:ix_bots_workspace_created,priority:1"`
	CreatorID        int64           `gorm:"not null"`
	Draft            jsonDoc         `gorm:"not null"`
	DraftRevision    int64           `gorm:"not null"`
	PublishedVersion int64           `gorm:"not null"`
	PublishedAt      *time.Time      `gorm:"precision:3"`
	CreatedAt        time.Time       `gorm:"not null;precision:3;index:ix_bots_workspace_created,priority:2"`
	UpdatedAt        time.Time       `gorm:"not null;precision:3"`
	Workspace        *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0002Bot) TableName() string { return "bots" }

type m0002BotVersion struct {
	BotID       int64     `gorm:"primaryKey;autoIncrement:false"`
	Number      int64     `gorm:"primaryKey;autoIncrement:false"`
	Config      jsonDoc   `gorm:"not null"`
	Connectors  string    `gorm:"type:text;not null"` // JSON array of strings
	PublisherID int64     `gorm:"not null"`
	CreatedAt   time.Time `gorm:"not null;precision:3"`
	Bot         *m0002Bot `gorm:"foreignKey:BotID;constraint:OnDelete:CASCADE"`
}

func (m0002BotVersion) TableName() string { return "bot_versions" }

type m0002VariableValue struct {
	BotID       int64      `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID exactKey   `gorm:"primaryKey"`
	UserID      endUserKey `gorm:"primaryKey"`
	Keyword     exactKey   `gorm:"primaryKey"`
	Value       string     `gorm:"type:text;not null"`
	CreatedAt   time.Time  `gorm:"not null;precision:3"`
	UpdatedAt   time.Time  `gorm:"not null;precision:3"`
	Bot         *m0002Bot  `gorm:"foreignKey:BotID;constraint:OnDelete:CASCADE"`
}

func (m0002VariableValue) TableName() string { return "variable_values" }

// up0002 creates the bots, their immutable versions and the keyword-memory
// values of end users. Deleting a workspace deletes its bots, and deleting
// a bot its versions and values, by cascading foreign keys.
func up0002(tx *gorm.DB) error {
	return createTables(tx, &m0002Bot{}, &m0002BotVersion{}, &m0002VariableValue{})
}
