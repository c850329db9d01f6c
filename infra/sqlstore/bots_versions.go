package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

type botVersionRow struct {
	BotID       int64  `gorm:"primaryKey;autoIncrement:false"`
	Number      int64  `gorm:"primaryKey;autoIncrement:false"`
	Config      string // configDoc JSON
	Connectors  string // JSON array of strings
	PublisherID int64
	CreatedAt   time.Time
}

func (botVersionRow) TableName() string { return "bot_versions" }

func versionFromRow(r *botVersionRow) (*bot.Version, error) {
	cfg, err := decodeConfig(r.Config)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: config of bot %d version %d: %w", r.BotID, r.Number, err)
	}
	v := &bot.Version{BotID: r.BotID, Number: r.Number, Config: cfg, PublisherID: r.PublisherID, CreatedAt: r.CreatedAt.UTC()}
	if err := fromJSONList(r.Connectors, &v.Connectors); err != nil {
		return nil, fmt.Errorf("sqlstore: connectors of bot %d version %d: %w", r.BotID, r.Number, err)
	}
	return v, nil
}

func versionNotFound(botID, number int64) error {
	return errs.NotFound("version", fmt.Sprintf("%d of bot %d", number, botID))
}

// PublishBot stores v as the next version of bot v.BotID and makes it the
// published one, in one transaction that holds the bot's row lock, so
// concurrent publishes get distinct, consecutive numbers. It sets v.Number
// (the previous highest plus one) and v.CreatedAt, and the bot's
// PublishedVersion and PublishedAt; the draft and UpdatedAt are left alone.
// It returns errs.ErrNotFound when the bot is not in the workspace.
func (s *BotStore) PublishBot(ctx context.Context, workspaceID int64, v *bot.Version) error {
	cfg, err := encodeConfig(&v.Config)
	if err != nil {
		return fmt.Errorf("sqlstore: publish bot %d: %w", v.BotID, err)
	}
	connectors, err := jsonList(v.Connectors)
	if err != nil {
		return fmt.Errorf("sqlstore: publish bot %d: %w", v.BotID, err)
	}
	row := &botVersionRow{BotID: v.BotID, Config: cfg, Connectors: connectors, PublisherID: v.PublisherID, CreatedAt: s.db.timestamp()}
	err = s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var b botRow
		err := forUpdate(tx).Select("id").Where("id = ? AND workspace_id = ?", v.BotID, workspaceID).Take(&b).Error
		if isNoRow(err) {
			return botNotFound(v.BotID)
		}
		if err != nil {
			return err
		}
		var last int64
		if err := tx.Model(&botVersionRow{}).Where("bot_id = ?", v.BotID).Select("COALESCE(MAX(number), 0)").Scan(&last).Error; err != nil {
			return err
		}
		row.Number = last + 1
		if err := tx.Create(row).Error; err != nil {
			return err
		}
		if err := publishTo(tx, row, v.Connectors); err != nil {
			return err
		}
		return tx.Model(&botRow{}).Where("id = ?", v.BotID).
			UpdateColumns(map[string]any{"published_version": row.Number, "published_at": row.CreatedAt}).Error
	})
	if err != nil {
		if isDomain(err) {
			return err
		}
		return fmt.Errorf("sqlstore: publish bot %d: %w", v.BotID, err)
	}
	v.Number, v.CreatedAt = row.Number, row.CreatedAt
	return nil
}

// publishTo records the version as the one each connector serves.
func publishTo(tx *gorm.DB, v *botVersionRow, connectors []string) error {
	for _, c := range connectors {
		p := publicationRow{BotID: v.BotID, ConnectorID: c, Version: v.Number, PublishedAt: v.CreatedAt}
		err := tx.Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "bot_id"}, {Name: "connector_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"version", "published_at"}),
		}).Create(&p).Error
		if err != nil {
			return err
		}
	}
	return nil
}

// PublishedTo returns the version last published to a connector of bot
// botID; 0 when none was.
func (s *BotStore) PublishedTo(ctx context.Context, botID int64, connector string) (int64, error) {
	var rows []publicationRow
	err := s.db.gorm.WithContext(ctx).Where("bot_id = ? AND connector_id = ?", botID, connector).Find(&rows).Error
	if err != nil {
		return 0, fmt.Errorf("sqlstore: publication of bot %d: %w", botID, err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	return rows[0].Version, nil
}

// GetVersion returns version number of bot botID, or errs.ErrNotFound.
func (s *BotStore) GetVersion(ctx context.Context, botID, number int64) (*bot.Version, error) {
	var row botVersionRow
	if err := s.db.gorm.WithContext(ctx).Where("bot_id = ? AND number = ?", botID, number).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, versionNotFound(botID, number)
		}
		return nil, fmt.Errorf("sqlstore: get bot version: %w", err)
	}
	return versionFromRow(&row)
}

// ListVersions returns every version of bot botID, newest first; none for
// an unknown bot.
func (s *BotStore) ListVersions(ctx context.Context, botID int64) ([]bot.Version, error) {
	var rows []botVersionRow
	if err := s.db.gorm.WithContext(ctx).Where("bot_id = ?", botID).Order("number DESC").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list bot versions: %w", err)
	}
	out := make([]bot.Version, len(rows))
	for i := range rows {
		v, err := versionFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = *v
	}
	return out, nil
}
