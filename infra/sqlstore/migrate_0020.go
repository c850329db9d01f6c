package sqlstore

import "gorm.io/gorm"

// Migration 20: the conversation of a workflow run started as a turn of a
// conversation (/v1/workflows/chat; 0 for others), kept so that a resumed
// run reads the same history and the conversation's next message finds
// the run waiting for an answer (ix_workflow_runs_conversation).

// Snapshot of migration 20. Frozen.

type m0020WorkflowRun struct {
	ConversationID int64 `gorm:"not null;default:0;index:ix_workflow_runs_conversation"`
}

func (m0020WorkflowRun) TableName() string { return "workflow_runs" }

func up0020(tx *gorm.DB) error {
	m := tx.Migrator()
	if !m.HasColumn(&m0020WorkflowRun{}, "ConversationID") {
		if err := m.AddColumn(&m0020WorkflowRun{}, "ConversationID"); err != nil {
			return err
		}
	}
	if m.HasIndex(&m0020WorkflowRun{}, "ix_workflow_runs_conversation") {
		return nil
	}
	return m.CreateIndex(&m0020WorkflowRun{}, "ix_workflow_runs_conversation")
}
