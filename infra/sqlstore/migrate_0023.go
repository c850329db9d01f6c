package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 23 (channel_event_retries): how a channel event is retried.
// turn_attempts counts the chat turns tried (a turn that failed while the
// model was unavailable is tried again while the event is young),
// next_attempt_at is when the next try of the turn or the send is due,
// apology marks an answer that is the apology the end user got because
// the bot could not answer.

// Snapshot of migration 23. Frozen.

type m0023Event struct {
	TurnAttempts  int        `gorm:"not null;default:0"`
	NextAttemptAt *time.Time `gorm:"precision:3"`
	Apology       bool       `gorm:"not null;default:false"`
}

func (m0023Event) TableName() string { return "channel_events" }

func up0023(tx *gorm.DB) error {
	for _, col := range []string{"TurnAttempts", "NextAttemptAt", "Apology"} {
		if tx.Migrator().HasColumn(&m0023Event{}, col) {
			continue
		}
		if err := tx.Migrator().AddColumn(&m0023Event{}, col); err != nil {
			return err
		}
	}
	return nil
}
