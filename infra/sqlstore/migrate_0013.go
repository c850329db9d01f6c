package sqlstore

import "gorm.io/gorm"

// Migration 13: runs that hold no lease. A synchronous run that cannot
// stop for an answer takes no lease:
//
//   - one that runs in the engine alone is stored once, when it ends, with
//     its node records as one JSON array in nodes (NULL for runs whose
//     records are in workflow_node_runs);
//   - one that may wait (models, code, HTTP...) is stored when it starts
//     with the process instance running it in instance, and fails when
//     that instance's heartbeat stops (ix_workflow_runs_status_instance
//     finds them); leased runs leave instance empty.

// Snapshot of migration 13. Frozen.

type m0013WorkflowRun struct {
	Status   string `gorm:"size:16;not null;index:ix_workflow_runs_status_instance,priority:1"`
	Instance string `gorm:"size:128;not null;default:'';index:ix_workflow_runs_status_instance,priority:2"`
	Nodes    *m0003LongText
}

func (m0013WorkflowRun) TableName() string { return "workflow_runs" }

func up0013(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, col := range []string{"Instance", "Nodes"} {
		if m.HasColumn(&m0013WorkflowRun{}, col) {
			continue
		}
		if err := m.AddColumn(&m0013WorkflowRun{}, col); err != nil {
			return err
		}
	}
	if m.HasIndex(&m0013WorkflowRun{}, "ix_workflow_runs_status_instance") {
		return nil
	}
	return m.CreateIndex(&m0013WorkflowRun{}, "ix_workflow_runs_status_instance")
}
