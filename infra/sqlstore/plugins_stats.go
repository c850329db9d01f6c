package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/plugin"
)

type toolStatRow struct {
	PluginID     int64  `gorm:"primaryKey;autoIncrement:false"`
	Tool         string `gorm:"primaryKey"`
	Calls        int64
	Failures     int64
	TotalMs      float64
	MaxMs        float64
	LastCalledAt time.Time
	LastError    string
	LastErrorAt  *time.Time
}

func (toolStatRow) TableName() string { return "plugin_tool_stats" }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// AddStats adds each batch to its tool's totals with one upsert per batch,
// so processes flushing at the same time never lose a count. Batches of
// plugins deleted meanwhile are dropped.
func (s *PluginStore) AddStats(ctx context.Context, batches []plugin.ToolStats) error {
	for _, b := range batches {
		err := s.db.gorm.WithContext(ctx).Clauses(statUpsert(b)).Create(&toolStatRow{
			PluginID: b.PluginID, Tool: b.Tool, Calls: b.Calls, Failures: b.Errors,
			TotalMs: ms(b.TotalLatency), MaxMs: ms(b.MaxLatency), LastCalledAt: dbTime(b.LastCalledAt),
			LastError: b.LastError, LastErrorAt: dbTimePtr(b.LastErrorAt),
		}).Error
		if err != nil && !isMissingParent(err) {
			return fmt.Errorf("sqlstore: add stats of plugin %d tool %s: %w", b.PluginID, b.Tool, err)
		}
	}
	return nil
}

// statUpsert adds a batch to an existing row. Each assignment reads only
// its own column: MySQL applies them left to right and a later one would
// otherwise see an earlier one's new value.
func statUpsert(b plugin.ToolStats) clause.OnConflict {
	last := dbTime(b.LastCalledAt)
	set := map[string]any{
		"calls":          gorm.Expr("calls + ?", b.Calls),
		"failures":       gorm.Expr("failures + ?", b.Errors),
		"total_ms":       gorm.Expr("total_ms + ?", ms(b.TotalLatency)),
		"max_ms":         gorm.Expr("CASE WHEN max_ms < ? THEN ? ELSE max_ms END", ms(b.MaxLatency), ms(b.MaxLatency)),
		"last_called_at": gorm.Expr("CASE WHEN last_called_at < ? THEN ? ELSE last_called_at END", last, last),
	}
	if b.LastErrorAt != nil {
		at := dbTime(*b.LastErrorAt)
		set["last_error"] = b.LastError
		set["last_error_at"] = at
	}
	return clause.OnConflict{
		Columns:   []clause.Column{{Name: "plugin_id"}, {Name: "tool"}},
		DoUpdates: clause.Assignments(set),
	}
}

// ListStats returns the totals of the tools of the given plugins, or of
// every plugin when ids is empty, ordered by plugin and tool.
func (s *PluginStore) ListStats(ctx context.Context, ids []int64) ([]plugin.ToolStats, error) {
	q := s.db.gorm.WithContext(ctx).Order("plugin_id, tool")
	if len(ids) > 0 {
		q = q.Where("plugin_id IN ?", ids)
	}
	var rows []toolStatRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list tool stats: %w", err)
	}
	out := make([]plugin.ToolStats, len(rows))
	for i, r := range rows {
		out[i] = plugin.ToolStats{
			PluginID: r.PluginID, Tool: r.Tool, Calls: r.Calls, Errors: r.Failures,
			TotalLatency: time.Duration(r.TotalMs * float64(time.Millisecond)),
			MaxLatency:   time.Duration(r.MaxMs * float64(time.Millisecond)),
			LastCalledAt: r.LastCalledAt.UTC(), LastError: r.LastError, LastErrorAt: utcPtr(r.LastErrorAt),
		}
	}
	return out, nil
}
