package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 14: usage reads a workspace's chats and workflow runs of a
// time range (GET /api/usage); an index on (workspace_id, created_at) of
// each keeps that read to the range instead of the whole table.

// Snapshots of migration 14. Frozen.

type m0014Chat struct {
	WorkspaceID int64     `gorm:"not null;index:ix_chats_workspace_created,priority:1"`
	CreatedAt   time.Time `gorm:"not null;precision:3;index:ix_chats_workspace_created,priority:2"`
}

func (m0014Chat) TableName() string { return "chats" }

type m0014WorkflowRun struct {
	WorkspaceID int64     `gorm:"not null;index:ix_workflow_runs_workspace_created,priority:1"`
	CreatedAt   time.Time `gorm:"not null;precision:3;index:ix_workflow_runs_workspace_created,priority:2"`
}

func (m0014WorkflowRun) TableName() string { return "workflow_runs" }

func up0014(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, ix := range []struct {
		model any
		name  string
	}{{&m0014Chat{}, "ix_chats_workspace_created"}, {&m0014WorkflowRun{}, "ix_workflow_runs_workspace_created"}} {
		if m.HasIndex(ix.model, ix.name) {
			continue
		}
		if err := m.CreateIndex(ix.model, ix.name); err != nil {
			return err
		}
	}
	return nil
}
