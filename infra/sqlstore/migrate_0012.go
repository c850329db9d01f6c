package sqlstore

import "gorm.io/gorm"

// Migration 12: what was sent of each channel event's answer. handle is
// the platform's handle of the answer's first message (the message a
// streamed answer grows in), parts_sent how many messages of the answer
// were delivered, so that a retried delivery resumes after them.

// Snapshot of migration 12. Frozen.

type m0012Event struct {
	Handle    string `gorm:"size:1000;not null;default:''"`
	PartsSent int    `gorm:"not null;default:0"`
}

func (m0012Event) TableName() string { return "channel_events" }

func up0012(tx *gorm.DB) error {
	for _, col := range []string{"Handle", "PartsSent"} {
		if tx.Migrator().HasColumn(&m0012Event{}, col) {
			continue
		}
		if err := tx.Migrator().AddColumn(&m0012Event{}, col); err != nil {
			return err
		}
	}
	return nil
}
