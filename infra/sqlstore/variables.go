package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/variable"
)

// VariableStore keeps the keyword-memory values of end users in the
// variable_values table, one row per bot, channel, end user and keyword.
// Every query names the whole scope.
type VariableStore struct{ db *DB }

var _ variable.Store = (*VariableStore)(nil)

// Variables returns the store of variable values.
func (db *DB) Variables() *VariableStore { return &VariableStore{db: db} }

type variableValueRow struct {
	BotID       int64  `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID string `gorm:"primaryKey"`
	UserID      string `gorm:"primaryKey"`
	Keyword     string `gorm:"primaryKey"`
	Value       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func (variableValueRow) TableName() string { return "variable_values" }

func (s *VariableStore) scoped(ctx context.Context, sc variable.Scope, keywords []string) *gorm.DB {
	q := s.db.gorm.WithContext(ctx).Where("bot_id = ? AND connector_id = ? AND user_id = ?", sc.BotID, sc.ConnectorID, sc.UserID)
	if len(keywords) > 0 {
		q = q.Where("keyword IN ?", keywords)
	}
	return q
}

// GetValues returns the stored values of the scope in keyword order, only
// those of keywords when any are given.
func (s *VariableStore) GetValues(ctx context.Context, sc variable.Scope, keywords []string) ([]variable.Value, error) {
	var rows []variableValueRow
	if err := s.scoped(ctx, sc, keywords).Order("keyword").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: get variable values: %w", err)
	}
	out := make([]variable.Value, len(rows))
	for i, r := range rows {
		out[i] = variable.Value{BotID: r.BotID, ConnectorID: r.ConnectorID, UserID: r.UserID, Keyword: r.Keyword,
			Value: r.Value, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	}
	return out, nil
}

// SetValues inserts or replaces the values of the scope in one statement,
// so either all are written or none. A replaced value keeps its CreatedAt.
// When a keyword comes twice the last value wins. It returns
// errs.ErrNotFound when the bot does not exist.
func (s *VariableStore) SetValues(ctx context.Context, sc variable.Scope, kvs []variable.KV) error {
	if len(kvs) == 0 {
		return nil
	}
	now := s.db.timestamp()
	rows := make([]variableValueRow, 0, len(kvs))
	at := map[string]int{}
	for _, kv := range kvs {
		if i, dup := at[kv.Keyword]; dup {
			rows[i].Value = kv.Value
			continue
		}
		at[kv.Keyword] = len(rows)
		rows = append(rows, variableValueRow{BotID: sc.BotID, ConnectorID: sc.ConnectorID, UserID: sc.UserID,
			Keyword: kv.Keyword, Value: kv.Value, CreatedAt: now, UpdatedAt: now})
	}
	err := s.db.gorm.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "bot_id"}, {Name: "connector_id"}, {Name: "user_id"}, {Name: "keyword"}},
		DoUpdates: clause.AssignmentColumns([]string{"value", "updated_at"}),
	}).Create(&rows).Error
	if isMissingParent(err) {
		return botNotFound(sc.BotID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: set variable values: %w", err)
	}
	return nil
}

// DeleteValues removes the values of the scope, only those of keywords
// when any are given. Removing what is not stored is no error.
func (s *VariableStore) DeleteValues(ctx context.Context, sc variable.Scope, keywords []string) error {
	if err := s.scoped(ctx, sc, keywords).Delete(&variableValueRow{}).Error; err != nil {
		return fmt.Errorf("sqlstore: delete variable values: %w", err)
	}
	return nil
}
