package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Migration 10: channels of bots, and what each connector serves. A
// channel keeps its plain settings as JSON and its secret ones sealed by
// the Cipher. channel_publications records, per bot and connector (the
// API "1024", the Chat SDK "999" or a channel id), the version last
// published there; it is filled from the versions already published, so
// a bot published to the API before this migration still answers there.

// Snapshots of migration 10. Frozen.

type m0010Channel struct {
	ID           int64     `gorm:"primaryKey;autoIncrement:false"`
	BotID        int64     `gorm:"not null;index:ix_channels_bot"`
	WorkspaceID  int64     `gorm:"not null;index:ix_channels_workspace"`
	Kind         string    `gorm:"size:16;not null"`
	Name         string    `gorm:"size:200;not null"`
	Status       string    `gorm:"size:16;not null"`
	StatusDetail string    `gorm:"type:text;not null"`
	Settings     string    `gorm:"type:text;not null"` // JSON object of the plain settings
	Secrets      string    `gorm:"type:text;not null"` // sealed JSON object of the secret settings
	CreatedAt    time.Time `gorm:"not null;precision:3"`
	UpdatedAt    time.Time `gorm:"not null;precision:3"`
	Bot          *m0002Bot `gorm:"foreignKey:BotID;constraint:OnDelete:CASCADE"`
}

func (m0010Channel) TableName() string { return "channels" }

type m0010Publication struct {
	BotID       int64     `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID exactKey  `gorm:"primaryKey"`
	Version     int64     `gorm:"not null"`
	PublishedAt time.Time `gorm:"not null;precision:3"`
	Bot         *m0002Bot `gorm:"foreignKey:BotID;constraint:OnDelete:CASCADE"`
}

func (m0010Publication) TableName() string { return "channel_publications" }

type m0010Version struct {
	BotID      int64
	Number     int64
	Connectors string
	CreatedAt  time.Time
}

// up0010 creates the tables and records, for every connector a bot was
// published to, its latest version there. Rows already present are kept,
// so it can run again after failing half-way.
func up0010(tx *gorm.DB) error {
	if err := createTables(tx, &m0010Channel{}, &m0010Publication{}); err != nil {
		return err
	}
	var versions []m0010Version
	if err := tx.Table("bot_versions").Select("bot_id, number, connectors, created_at").Order("bot_id, number").Find(&versions).Error; err != nil {
		return err
	}
	latest, err := m0010Latest(versions)
	if err != nil {
		return err
	}
	for _, p := range latest {
		var n int64
		if err := tx.Model(&m0010Publication{}).Where("bot_id = ? AND connector_id = ?", p.BotID, p.ConnectorID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if err := tx.Create(p).Error; err != nil {
			return err
		}
	}
	return nil
}

// m0010Latest returns, per bot and connector, the newest version; versions
// come in ascending order.
func m0010Latest(versions []m0010Version) ([]*m0010Publication, error) {
	type key struct {
		bot       int64
		connector string
	}
	byKey := map[key]*m0010Publication{}
	var order []*m0010Publication
	for _, v := range versions {
		var connectors []string
		if err := json.Unmarshal([]byte(v.Connectors), &connectors); err != nil {
			return nil, fmt.Errorf("connectors of bot %d version %d: %w", v.BotID, v.Number, err)
		}
		for _, c := range connectors {
			k := key{v.BotID, c}
			if p, ok := byKey[k]; ok {
				p.Version, p.PublishedAt = v.Number, v.CreatedAt
				continue
			}
			p := &m0010Publication{BotID: v.BotID, ConnectorID: exactKey(c), Version: v.Number, PublishedAt: v.CreatedAt}
			byKey[k] = p
			order = append(order, p)
		}
	}
	return order, nil
}
