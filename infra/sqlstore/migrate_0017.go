package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 17: uploaded files (Coze's /v1/files). One row per file with
// the metadata; the bytes live in the file store under storage_key.
// Deleting a workspace deletes its rows (the bytes stay in the store).

// Snapshots of migration 17. Frozen.

type m0017File struct {
	ID          int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64           `gorm:"not null;index:ix_files_workspace_created,priority:1"`
	UserID      int64           `gorm:"not null"`
	Name        string          `gorm:"size:255;not null"`
	MimeType    string          `gorm:"size:127;not null"`
	Bytes       int64           `gorm:"not null"`
	SHA256      string          `gorm:"column:sha256;size:64;not null"`
	StorageKey  string          `gorm:"size:255;not null"`
	CreatedAt   time.Time       `gorm:"not null;precision:3;index:ix_files_workspace_created,priority:2"`
	Workspace   *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0017File) TableName() string { return "files" }

func up0017(tx *gorm.DB) error {
	return createTables(tx, &m0017File{})
}
