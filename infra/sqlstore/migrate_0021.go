package sqlstore

import "gorm.io/gorm"

// Migration 21: model kinds. A model is a chat model (every model stored
// before this migration), an embedding model with an optional vector
// length, or a rerank model; is_default marks the platform's default
// embedding model.

// Snapshot of migration 21. Frozen.

type m0021Model struct {
	Kind       string `gorm:"size:16;not null;default:chat"`
	Dimensions int    `gorm:"not null;default:0"`
	IsDefault  bool   `gorm:"not null;default:false"`
}

func (m0021Model) TableName() string { return "models" }

func up0021(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, field := range []string{"Kind", "Dimensions", "IsDefault"} {
		if m.HasColumn(&m0021Model{}, field) {
			continue
		}
		if err := m.AddColumn(&m0021Model{}, field); err != nil {
			return err
		}
	}
	return nil
}
