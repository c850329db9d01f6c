package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 7: the durable state of workflow runs, one row per run: the
// lease of the process running it (renewed while it runs, reclaimed by any
// process once it expires), a cancel request, and for an interrupted run
// the pending interrupt with its event id and the engine's checkpoint.

// Snapshot of migration 7. Frozen.

type m0007WorkflowCheckpoint struct {
	RunID      int64             `gorm:"primaryKey;autoIncrement:false"`
	Caller     string            `gorm:"type:text;not null"`
	EventID    string            `gorm:"size:64;not null"`
	Interrupt  m0003LongText     `gorm:"not null"`
	Checkpoint m0003LongText     `gorm:"not null"`
	LeaseOwner string            `gorm:"size:128;not null"`
	LeaseUntil *time.Time        `gorm:"precision:3;index:ix_workflow_checkpoints_lease"`
	Attempts   int               `gorm:"not null"`
	Cancel     bool              `gorm:"not null"`
	UpdatedAt  time.Time         `gorm:"not null;precision:3"`
	Run        *m0006WorkflowRun `gorm:"foreignKey:RunID;constraint:OnDelete:CASCADE"`
}

func (m0007WorkflowCheckpoint) TableName() string { return "workflow_checkpoints" }

// up0007 creates workflow_checkpoints; deleting a run deletes its row.
func up0007(tx *gorm.DB) error { return createTables(tx, &m0007WorkflowCheckpoint{}) }
