package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 5: the definitions of tables. Their rows are not here: they
// live in a database of their own (see infra/tablestore), which a user
// with rights on nothing else reaches. Deleting a workspace deletes its
// definitions; the rows' storage drops what no definition names any more.

// Snapshots of migration 5. Frozen.

type m0005Table struct {
	ID          int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64           `gorm:"not null;uniqueIndex:ux_data_tables_workspace_name,priority:1"`
	CreatorID   int64           `gorm:"not null"`
	Name        caseFoldText    `gorm:"not null;uniqueIndex:ux_data_tables_workspace_name,priority:2"`
	Description string          `gorm:"type:text;not null"`
	Mode        string          `gorm:"size:16;not null"`
	Fields      jsonDoc         `gorm:"not null"` // JSON array of fields
	FieldSeq    int             `gorm:"not null"`
	Revision    int64           `gorm:"not null"`
	CreatedAt   time.Time       `gorm:"not null;precision:3"`
	UpdatedAt   time.Time       `gorm:"not null;precision:3"`
	Workspace   *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0005Table) TableName() string { return "data_tables" }

func up0005(tx *gorm.DB) error {
	return createTables(tx, &m0005Table{})
}
