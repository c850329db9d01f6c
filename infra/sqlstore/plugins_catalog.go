package sqlstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/application/queue"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// SyncBuiltin makes the catalog hold p (whose ID is fixed by the caller)
// with p.Draft as its draft and as version 1, in one transaction: a new
// built-in is created enabled and published; a known one gets the name,
// description and spec of this release, and keeps the administrators'
// switches. Processes starting together are safe: the one that loses the
// race to create the row updates it instead. An ID held by a plugin of a
// workspace is errs.ErrConflict.
func (s *PluginStore) SyncBuiltin(ctx context.Context, p *plugin.Plugin) error {
	err := s.syncBuiltin(ctx, p)
	// Two processes starting on an empty database both create the row:
	// the loser finds it taken (duplicate key) or, on InnoDB, deadlocks on
	// the gap lock of the absent row. Run again, it updates the row; the
	// retries wait a growing, random moment, so that several processes
	// starting together do not collide again in step.
	for i := 1; i <= 8 && (isDuplicate(err) || isDeadlock(err)); i++ {
		queue.Sleep(ctx, time.Duration(i)*time.Duration(5+rand.IntN(20))*time.Millisecond)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err = s.syncBuiltin(ctx, p)
	}
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: sync built-in plugin %d: %w", p.ID, err)
	}
	return err
}

func (s *PluginStore) syncBuiltin(ctx context.Context, p *plugin.Plugin) error {
	spec, err := encodeSpec(&p.Draft)
	if err != nil {
		return err
	}
	now := s.db.timestamp()
	return s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur pluginRow
		err := forUpdate(tx).Omit(withoutSource).Where("id = ?", p.ID).Take(&cur).Error
		if isNoRow(err) {
			return s.createBuiltin(tx, p, now)
		}
		if err != nil {
			return err
		}
		if cur.WorkspaceID != nil {
			return errs.Conflict("plugin id %d of built-in %s is taken by a plugin of workspace %d", p.ID, p.Name, *cur.WorkspaceID)
		}
		err = tx.Model(&pluginRow{}).Where("id = ?", p.ID).UpdateColumns(map[string]any{
			"name": p.Name, "description": p.Description, "draft_source": p.Draft.Source, "draft_spec": spec, "updated_at": now,
		}).Error
		if err != nil {
			return err
		}
		return tx.Model(&pluginVersionRow{}).Where("plugin_id = ? AND number = 1", p.ID).
			UpdateColumns(map[string]any{"source": p.Draft.Source, "spec": spec}).Error
	})
}

func (s *PluginStore) createBuiltin(tx *gorm.DB, p *plugin.Plugin, t time.Time) error {
	b := *p
	b.WorkspaceID, b.Kind, b.Enabled = plugin.CatalogWorkspace, plugin.KindBuiltin, true
	b.DraftRevision, b.PublishedVersion, b.PublishedAt, b.CreatedAt, b.UpdatedAt = 1, 1, &t, t, t
	row, err := s.toRow(&b)
	if err != nil {
		return err
	}
	if err := tx.Create(row).Error; err != nil {
		return err
	}
	return tx.Create(&pluginVersionRow{PluginID: b.ID, Number: 1, Source: row.DraftSource, Spec: row.DraftSpec, CreatedAt: t}).Error
}
