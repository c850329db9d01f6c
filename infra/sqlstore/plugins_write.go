package sqlstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// UpdatePlugin runs fn on the plugin, with its source, inside a
// transaction that holds its row lock, and saves what fn leaves with
// DraftRevision increased and UpdatedAt set. Only the name, description,
// auth and draft change: id, workspace, creator, kind, publication and
// the administrators' switches are kept whatever fn does. It returns
// errs.ErrNotFound when the plugin is not in the workspace,
// errs.ErrConflict when the new name is taken, and fn's error unchanged,
// writing nothing, when fn fails.
func (s *PluginStore) UpdatePlugin(ctx context.Context, workspaceID, id int64, fn func(*plugin.Plugin) error) (*plugin.Plugin, error) {
	var changed *plugin.Plugin
	row, err := updateLocked(ctx, s.db, "update plugin", func() error { return pluginNotFound(id) }, func(r *pluginRow) error {
		p, err := s.fromRow(r)
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
		kept, err := s.fromRow(r)
		if err != nil {
			return err
		}
		kept.Name, kept.Description, kept.Auth, kept.Env, kept.Draft = p.Name, p.Description, p.Auth, p.Env, p.Draft
		kept.DraftRevision++
		kept.UpdatedAt = s.db.timestamp()
		next, err := s.toRow(kept)
		if err != nil {
			return fmt.Errorf("sqlstore: update plugin %d: %w", id, err)
		}
		*r, changed = *next, kept
		return nil
	}, "id = ? AND workspace_id = ?", id, workspaceID)
	if isDuplicate(err) {
		return nil, pluginNameTaken(changed.Name)
	}
	if err != nil {
		return nil, err
	}
	changed.UpdatedAt = row.UpdatedAt.UTC()
	return changed, nil
}

// SetGovernance runs fn on any plugin, workspace or catalog, and saves the
// administrators' switches it leaves (Enabled, DisabledTools) with
// UpdatedAt; nothing else changes. It returns errs.ErrNotFound for an
// unknown id and fn's error unchanged when fn fails.
func (s *PluginStore) SetGovernance(ctx context.Context, id int64, fn func(*plugin.Plugin) error) (*plugin.Plugin, error) {
	var changed *plugin.Plugin
	row, err := updateLocked(ctx, s.db, "govern plugin", func() error { return pluginNotFound(id) }, func(r *pluginRow) error {
		p, err := s.fromRow(r)
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
		disabled, err := jsonList(p.DisabledTools)
		if err != nil {
			return err
		}
		r.Enabled, r.DisabledTools = p.Enabled, disabled
		changed, err = s.fromRow(r)
		return err
	}, "id = ?", id)
	if err != nil {
		return nil, err
	}
	changed.Draft.Source = ""
	changed.UpdatedAt = row.UpdatedAt.UTC() // gorm sets it on every update
	return changed, nil
}

// DeletePlugin removes the plugin with its versions and statistics, in one
// transaction. It returns errs.ErrNotFound when the plugin is not in the
// workspace.
func (s *PluginStore) DeletePlugin(ctx context.Context, workspaceID, id int64) error {
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("id = ? AND workspace_id = ?", id, workspaceID).Delete(&pluginRow{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return pluginNotFound(id)
		}
		// The foreign keys cascade; deleting explicitly keeps this true on
		// a database created without them.
		if err := tx.Where("plugin_id = ?", id).Delete(&pluginVersionRow{}).Error; err != nil {
			return err
		}
		return tx.Where("plugin_id = ?", id).Delete(&toolStatRow{}).Error
	})
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: delete plugin: %w", err)
	}
	return err
}
