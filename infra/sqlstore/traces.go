package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/trace"
)

// TraceStore keeps run traces in the traces table.
type TraceStore struct{ db *DB }

var _ trace.Store = (*TraceStore)(nil)

// Traces returns the store of run traces.
func (db *DB) Traces() *TraceStore { return &TraceStore{db: db} }

type traceRow struct {
	ID          int64 `gorm:"primaryKey;autoIncrement"`
	TraceID     int64
	WorkspaceID int64
	Kind        string
	CreatedAt   time.Time
	Tree        string
}

func (traceRow) TableName() string { return "traces" }

// SaveTraces stores recs in one insert. When that fails (a workspace
// deleted meanwhile) it stores them one by one, leaving out those whose
// workspace is gone; records without a workspace are left out.
func (s *TraceStore) SaveTraces(ctx context.Context, recs []trace.Record) error {
	rows := make([]traceRow, 0, len(recs))
	for _, r := range recs {
		if r.WorkspaceID == 0 {
			continue
		}
		rows = append(rows, traceRow{TraceID: r.TraceID, WorkspaceID: r.WorkspaceID, Kind: r.Kind,
			CreatedAt: dbTime(r.CreatedAt), Tree: string(r.Tree)})
	}
	if len(rows) == 0 {
		return nil
	}
	db := s.db.gorm.WithContext(ctx)
	if err := db.Create(&rows).Error; err == nil || len(rows) == 1 && isMissingParent(err) {
		return nil
	} else if !isMissingParent(err) {
		return fmt.Errorf("sqlstore: save traces: %w", err)
	}
	for i := range rows {
		rows[i].ID = 0
		if err := db.Create(&rows[i]).Error; err != nil && !isMissingParent(err) {
			return fmt.Errorf("sqlstore: save trace %d: %w", rows[i].TraceID, err)
		}
	}
	return nil
}

// TraceRecords returns the records of trace id, oldest first.
func (s *TraceStore) TraceRecords(ctx context.Context, id int64) ([]trace.Record, error) {
	var rows []traceRow
	err := s.db.gorm.WithContext(ctx).Where("trace_id = ?", id).Order("created_at, id").Limit(maxTraceRecords).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read trace %d: %w", id, err)
	}
	out := make([]trace.Record, len(rows))
	for i, r := range rows {
		out[i] = trace.Record{TraceID: r.TraceID, WorkspaceID: r.WorkspaceID, Kind: r.Kind, CreatedAt: r.CreatedAt.UTC(), Tree: []byte(r.Tree)}
	}
	return out, nil
}

// maxTraceRecords bounds the runs read of one trace (a chat resumed many
// times keeps its first ones).
const maxTraceRecords = 100

// DeleteTracesBefore deletes up to limit of the oldest records stored
// before t and returns how many it deleted. Records are found in id
// order, which is the order they were stored in, so the oldest come first
// without an index on created_at.
func (s *TraceStore) DeleteTracesBefore(ctx context.Context, t time.Time, limit int) (int, error) {
	var ids []int64
	db := s.db.gorm.WithContext(ctx)
	if err := db.Model(&traceRow{}).Where("created_at < ?", dbTime(t)).Order("id").Limit(limit).Pluck("id", &ids).Error; err != nil {
		return 0, fmt.Errorf("sqlstore: find old traces: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	res := db.Where("id IN ?", ids).Delete(&traceRow{})
	if res.Error != nil {
		return 0, fmt.Errorf("sqlstore: delete old traces: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}
