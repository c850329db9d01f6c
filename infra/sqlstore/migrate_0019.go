package sqlstore

import "gorm.io/gorm"

// Migration 19: an app's conversation templates (Coze's app
// conversations), a JSON array of names in apps.conversations; NULL for
// none besides Default.

// Snapshot of migration 19. Frozen.

type m0019App struct {
	Conversations *m0003LongText
}

func (m0019App) TableName() string { return "apps" }

func up0019(tx *gorm.DB) error {
	if tx.Migrator().HasColumn(&m0019App{}, "Conversations") {
		return nil
	}
	return tx.Migrator().AddColumn(&m0019App{}, "Conversations")
}
