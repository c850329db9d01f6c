package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

type pluginVersionRow struct {
	PluginID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Number      int64 `gorm:"primaryKey;autoIncrement:false"`
	Source      string
	Spec        string // specDoc JSON
	PublisherID int64
	CreatedAt   time.Time
}

func (pluginVersionRow) TableName() string { return "plugin_versions" }

func pluginVersionNotFound(id, number int64) error {
	return errs.NotFound("version", fmt.Sprintf("%d of plugin %d", number, id))
}

func pluginVersionFromRow(r *pluginVersionRow) (*plugin.Version, error) {
	spec, err := decodeSpec(r.Spec, r.Source)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: spec of plugin %d version %d: %w", r.PluginID, r.Number, err)
	}
	return &plugin.Version{PluginID: r.PluginID, Number: r.Number, Spec: spec, PublisherID: r.PublisherID, CreatedAt: r.CreatedAt.UTC()}, nil
}

// PublishPlugin stores v as the next version of plugin v.PluginID and makes
// it the published one, in one transaction holding the plugin's row lock,
// so concurrent publishes get distinct, consecutive numbers. It sets
// v.Number and v.CreatedAt. It returns errs.ErrNotFound when the plugin is
// not in the workspace.
func (s *PluginStore) PublishPlugin(ctx context.Context, workspaceID int64, v *plugin.Version) error {
	spec, err := encodeSpec(&v.Spec)
	if err != nil {
		return fmt.Errorf("sqlstore: publish plugin %d: %w", v.PluginID, err)
	}
	row := &pluginVersionRow{PluginID: v.PluginID, Source: v.Spec.Source, Spec: spec, PublisherID: v.PublisherID, CreatedAt: s.db.timestamp()}
	err = s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var p pluginRow
		err := forUpdate(tx).Select("id").Where("id = ? AND workspace_id = ?", v.PluginID, workspaceID).Take(&p).Error
		if isNoRow(err) {
			return pluginNotFound(v.PluginID)
		}
		if err != nil {
			return err
		}
		var last int64
		if err := tx.Model(&pluginVersionRow{}).Where("plugin_id = ?", v.PluginID).Select("COALESCE(MAX(number), 0)").Scan(&last).Error; err != nil {
			return err
		}
		row.Number = last + 1
		if err := tx.Create(row).Error; err != nil {
			return err
		}
		return tx.Model(&pluginRow{}).Where("id = ?", v.PluginID).
			UpdateColumns(map[string]any{"published_version": row.Number, "published_at": row.CreatedAt}).Error
	})
	if err != nil {
		if isDomain(err) {
			return err
		}
		return fmt.Errorf("sqlstore: publish plugin %d: %w", v.PluginID, err)
	}
	v.Number, v.CreatedAt = row.Number, row.CreatedAt
	return nil
}

// GetVersion returns version number of a plugin, without its source, or
// errs.ErrNotFound.
func (s *PluginStore) GetVersion(ctx context.Context, id, number int64) (*plugin.Version, error) {
	var row pluginVersionRow
	err := s.db.gorm.WithContext(ctx).Omit("source").Where("plugin_id = ? AND number = ?", id, number).Take(&row).Error
	if isNoRow(err) {
		return nil, pluginVersionNotFound(id, number)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: get plugin version: %w", err)
	}
	return pluginVersionFromRow(&row)
}

// ListVersions returns every version of a plugin, newest first, without
// sources; none for an unknown plugin.
func (s *PluginStore) ListVersions(ctx context.Context, id int64) ([]plugin.Version, error) {
	var rows []pluginVersionRow
	if err := s.db.gorm.WithContext(ctx).Omit("source").Where("plugin_id = ?", id).Order("number DESC").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list plugin versions: %w", err)
	}
	out := make([]plugin.Version, len(rows))
	for i := range rows {
		v, err := pluginVersionFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = *v
	}
	return out, nil
}
