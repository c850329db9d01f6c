package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 6: workflows, their published versions, their runs and the
// record of every node of a run. Definitions and node inputs and outputs
// are long texts (LONGTEXT on MySQL): a workflow of many nodes, or a node
// returning a large body, passes the 64 KiB of a TEXT.

// Snapshots of migration 6. Frozen.

type m0006Workflow struct {
	ID               int64           `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID      int64           `gorm:"not null;index:ix_workflows_workspace_created,priority:1"`
	CreatorID        int64           `gorm:"not null"`
	Name             string          `gorm:"size:64;not null"`
	Description      string          `gorm:"type:text;not null"`
	Definition       m0003LongText   `gorm:"not null"`
	DraftRevision    int64           `gorm:"not null"`
	PublishedVersion int64           `gorm:"not null"`
	PublishedAt      *time.Time      `gorm:"precision:3"`
	CreatedAt        time.Time       `gorm:"not null;precision:3;index:ix_workflows_workspace_created,priority:2"`
	UpdatedAt        time.Time       `gorm:"not null;precision:3"`
	Workspace        *m0001Workspace `gorm:"foreignKey:WorkspaceID;constraint:OnDelete:CASCADE"`
}

func (m0006Workflow) TableName() string { return "workflows" }

type m0006WorkflowVersion struct {
	WorkflowID  int64          `gorm:"primaryKey;autoIncrement:false"`
	Number      int64          `gorm:"primaryKey;autoIncrement:false"`
	Name        string         `gorm:"size:64;not null"`
	Description string         `gorm:"type:text;not null"`
	Definition  m0003LongText  `gorm:"not null"`
	PublisherID int64          `gorm:"not null"`
	CreatedAt   time.Time      `gorm:"not null;precision:3"`
	Workflow    *m0006Workflow `gorm:"foreignKey:WorkflowID;constraint:OnDelete:CASCADE"`
}

func (m0006WorkflowVersion) TableName() string { return "workflow_versions" }

type m0006WorkflowRun struct {
	ID            int64          `gorm:"primaryKey;autoIncrement:false"`
	WorkflowID    int64          `gorm:"not null;index:ix_workflow_runs_workflow,priority:1"`
	WorkspaceID   int64          `gorm:"not null"`
	Version       int64          `gorm:"not null"`
	DraftRevision int64          `gorm:"not null"`
	Mode          string         `gorm:"size:16;not null"`
	Status        string         `gorm:"size:16;not null"`
	CallerID      int64          `gorm:"not null"`
	BotID         int64          `gorm:"not null"`
	UserID        endUserKey     `gorm:"not null"`
	ConnectorID   string         `gorm:"size:64;not null"`
	Input         m0003LongText  `gorm:"not null"`
	Output        m0003LongText  `gorm:"not null"`
	Error         string         `gorm:"type:text;not null"`
	InputTokens   int64          `gorm:"not null"`
	OutputTokens  int64          `gorm:"not null"`
	CreatedAt     time.Time      `gorm:"not null;precision:3;index:ix_workflow_runs_workflow,priority:2"`
	UpdatedAt     time.Time      `gorm:"not null;precision:3"`
	FinishedAt    *time.Time     `gorm:"precision:3"`
	Workflow      *m0006Workflow `gorm:"foreignKey:WorkflowID;constraint:OnDelete:CASCADE"`
}

func (m0006WorkflowRun) TableName() string { return "workflow_runs" }

type m0006WorkflowNodeRun struct {
	RunID        int64             `gorm:"primaryKey;autoIncrement:false"`
	Seq          int64             `gorm:"primaryKey;autoIncrement:false"`
	NodeID       string            `gorm:"size:64;not null"`
	Type         string            `gorm:"size:32;not null"`
	Title        string            `gorm:"size:200;not null"`
	Parent       string            `gorm:"size:500;not null"`
	Idx          int               `gorm:"column:idx;not null"`
	Status       string            `gorm:"size:16;not null"`
	Handled      bool              `gorm:"not null"`
	Input        m0003LongText     `gorm:"not null"`
	Output       m0003LongText     `gorm:"not null"`
	Error        string            `gorm:"type:text;not null"`
	Logs         string            `gorm:"type:text;not null"`
	StartedAt    time.Time         `gorm:"not null;precision:3"`
	DurationUS   int64             `gorm:"column:duration_us;not null"`
	InputTokens  int64             `gorm:"not null"`
	OutputTokens int64             `gorm:"not null"`
	Attempts     int               `gorm:"not null"`
	Run          *m0006WorkflowRun `gorm:"foreignKey:RunID;constraint:OnDelete:CASCADE"`
}

func (m0006WorkflowNodeRun) TableName() string { return "workflow_node_runs" }

// up0006 creates workflows, versions, runs and node records. Deleting a
// workspace deletes its workflows, and deleting a workflow its versions,
// runs and node records, by cascading foreign keys.
func up0006(tx *gorm.DB) error {
	return createTables(tx, &m0006Workflow{}, &m0006WorkflowVersion{}, &m0006WorkflowRun{}, &m0006WorkflowNodeRun{})
}
