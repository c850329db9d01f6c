package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 24: triggers, which run a workflow on a schedule or on a call
// to their webhook. A schedule's next_run is the tick it waits for: a
// dispatcher claims a tick by moving next_run on with a conditional
// UPDATE, so exactly one process runs each tick. trigger_requests keeps the
// request ids of webhook calls, one row each (the key refuses a repeat). The workflow is not a
// foreign key: a trigger whose workflow is deleted stays, paused with the
// reason. Deleting a workspace deletes its triggers.

// Snapshots of Migration 24. Frozen.

type m0024Trigger struct {
	ID          int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64           `gorm:"not null;index:ix_triggers_workspace"`
	CreatorID   int64           `gorm:"not null"`
	Name        string          `gorm:"size:200;not null"`
	Kind        string          `gorm:"size:16;not null"`
	WorkflowID  int64           `gorm:"not null;index:ix_triggers_workflow"`
	Inputs      jsonDoc         `gorm:"not null"`
	Cron        string          `gorm:"size:200;not null"`
	TimeZone    string          `gorm:"size:64;not null"`
	IntervalMs  int64           `gorm:"not null"`
	Missed      string          `gorm:"size:16;not null"`
	Secret      string          `gorm:"type:text;not null"` // sealed
	Auth        string          `gorm:"size:16;not null"`
	Answer      string          `gorm:"size:16;not null"`
	RateLimit   int             `gorm:"not null"`
	State       string          `gorm:"size:16;not null;index:ix_triggers_due,priority:1"`
	PauseReason string          `gorm:"type:text;not null"`
	NextRun     *time.Time      `gorm:"precision:3;index:ix_triggers_due,priority:2"`
	LastRun     *time.Time      `gorm:"precision:3"`
	LastRunID   int64           `gorm:"not null"`
	LastStatus  string          `gorm:"size:16;not null"`
	LastError   string          `gorm:"type:text;not null"`
	CreatedAt   time.Time       `gorm:"not null;precision:3"`
	UpdatedAt   time.Time       `gorm:"not null;precision:3"`
	Workspace   *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0024Trigger) TableName() string { return "triggers" }

// m0024TriggerRequest remembers a webhook call's request id, so that a
// repeat answers the first call's run instead of running again.
type m0024TriggerRequest struct {
	TriggerID int64         `gorm:"primaryKey;autoIncrement:false"`
	RequestID string        `gorm:"primaryKey;size:128"`
	RunID     int64         `gorm:"not null"`
	CreatedAt time.Time     `gorm:"not null;precision:3"`
	Trigger   *m0024Trigger `gorm:"foreignKey:TriggerID;constraint:OnDelete:CASCADE"`
}

func (m0024TriggerRequest) TableName() string { return "trigger_requests" }

func up0024(tx *gorm.DB) error { return createTables(tx, &m0024Trigger{}, &m0024TriggerRequest{}) }
