package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/app"
)

type appValueRow struct {
	AppID       int64  `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID string `gorm:"primaryKey"`
	UserID      string `gorm:"primaryKey"`
	Name        string `gorm:"primaryKey"`
	Value       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func (appValueRow) TableName() string { return "app_variable_values" }

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// Values returns the stored values of a scope by name.
func (s *AppStore) Values(ctx context.Context, sc app.Scope) (map[string]any, error) {
	var rows []appValueRow
	err := s.db.gorm.WithContext(ctx).Where("app_id = ? AND connector_id = ? AND user_id = ?", sc.AppID, sc.ConnectorID, sc.UserID).
		Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: get app values: %w", err)
	}
	out := make(map[string]any, len(rows))
	for _, r := range rows {
		var v any
		if err := decodeJSON(r.Value, &v); err != nil {
			return nil, fmt.Errorf("sqlstore: app value %s: %w", r.Name, err)
		}
		out[r.Name] = app.Numbers(v)
	}
	return out, nil
}

// SetValues inserts or replaces values of a scope in one statement, so
// either all are written or none; errs.ErrNotFound for an unknown app.
func (s *AppStore) SetValues(ctx context.Context, sc app.Scope, values map[string]any) error {
	if len(values) == 0 {
		return nil
	}
	now := s.db.timestamp()
	rows := make([]appValueRow, 0, len(values))
	for name, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("sqlstore: app value %s: %w", name, err)
		}
		rows = append(rows, appValueRow{AppID: sc.AppID, ConnectorID: sc.ConnectorID, UserID: sc.UserID, Name: name,
			Value: string(b), CreatedAt: now, UpdatedAt: now})
	}
	err := s.db.gorm.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "app_id"}, {Name: "connector_id"}, {Name: "user_id"}, {Name: "name"}},
		DoUpdates: clause.AssignmentColumns([]string{"value", "updated_at"}),
	}).Create(&rows).Error
	if isMissingParent(err) {
		return appNotFound(sc.AppID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: set app values: %w", err)
	}
	return nil
}

// DeleteValues removes the named values of a scope, or all of them.
func (s *AppStore) DeleteValues(ctx context.Context, sc app.Scope, names []string) error {
	q := s.db.gorm.WithContext(ctx).Where("app_id = ? AND connector_id = ? AND user_id = ?", sc.AppID, sc.ConnectorID, sc.UserID)
	if len(names) > 0 {
		q = q.Where("name IN ?", names)
	}
	if err := q.Delete(&appValueRow{}).Error; err != nil {
		return fmt.Errorf("sqlstore: delete app values: %w", err)
	}
	return nil
}
