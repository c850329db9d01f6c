package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 9: crash recovery of chats. Each chat in progress names the
// process instance running it, and every process instance records a
// heartbeat, so any process can tell the chats of a dead process (the
// heartbeat stopped) from those of a live one, and fail them.

// Snapshots of migration 9. Frozen.

type m0009ProcessInstance struct {
	ID          string    `gorm:"primaryKey;size:128"`
	HeartbeatAt time.Time `gorm:"not null;precision:3;index:ix_process_instances_heartbeat"`
}

func (m0009ProcessInstance) TableName() string { return "process_instances" }

type m0009Chat struct {
	Status   string `gorm:"size:32;not null;index:ix_chats_status_instance,priority:1"`
	Instance string `gorm:"size:128;not null;default:'';index:ix_chats_status_instance,priority:2"`
}

func (m0009Chat) TableName() string { return "chats" }

// up0009 creates process_instances and adds chats.instance with an index
// over (status, instance), which the sweep for orphaned chats reads.
func up0009(tx *gorm.DB) error {
	if err := createTables(tx, &m0009ProcessInstance{}); err != nil {
		return err
	}
	m := tx.Migrator()
	if !m.HasColumn(&m0009Chat{}, "Instance") {
		if err := m.AddColumn(&m0009Chat{}, "Instance"); err != nil {
			return err
		}
	}
	if !m.HasIndex(&m0009Chat{}, "ix_chats_status_instance") {
		return m.CreateIndex(&m0009Chat{}, "ix_chats_status_instance")
	}
	return nil
}
