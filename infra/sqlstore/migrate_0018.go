package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 18: run traces. One row per finished run of a chat turn or
// workflow run (a resumed turn or run adds a row with the same trace id):
// the span tree as JSON, bounded by the writer. Deleting a workspace
// deletes its traces.

// Snapshot of migration 18. Frozen.

type m0018Trace struct {
	ID          int64           `gorm:"primaryKey;autoIncrement"`
	TraceID     int64           `gorm:"not null;index:ix_traces_trace,priority:1"`
	WorkspaceID int64           `gorm:"not null;index:ix_traces_workspace_created,priority:1"`
	Kind        string          `gorm:"size:16;not null"`
	CreatedAt   time.Time       `gorm:"not null;precision:3;index:ix_traces_workspace_created,priority:2"`
	Tree        jsonDoc         `gorm:"not null"`
	Workspace   *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0018Trace) TableName() string { return "traces" }

func up0018(tx *gorm.DB) error {
	return createTables(tx, &m0018Trace{})
}
