package sqlstore

import (
	"context"
	"fmt"
	"time"
)

type triggerRequestRow struct {
	TriggerID int64  `gorm:"primaryKey;autoIncrement:false"`
	RequestID string `gorm:"primaryKey"`
	RunID     int64
	CreatedAt time.Time
}

func (triggerRequestRow) TableName() string { return "trigger_requests" }

// ClaimRequest records request id key of a webhook call of trigger id.
// The first call of a key gets first true; a repeat gets the run id the
// first one recorded (0 while it is still starting).
func (s *TriggerStore) ClaimRequest(ctx context.Context, id int64, key string) (int64, bool, error) {
	row := triggerRequestRow{TriggerID: id, RequestID: key, CreatedAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Create(&row).Error
	if err == nil {
		return 0, true, nil
	}
	if !isDuplicate(err) {
		return 0, false, fmt.Errorf("sqlstore: claim trigger request: %w", err)
	}
	if err := s.db.gorm.WithContext(ctx).Where("trigger_id = ? AND request_id = ?", id, key).Take(&row).Error; err != nil {
		return 0, false, fmt.Errorf("sqlstore: read trigger request: %w", err)
	}
	return row.RunID, false, nil
}

// SetRequestRun records the run a claimed request started.
func (s *TriggerStore) SetRequestRun(ctx context.Context, id int64, key string, runID int64) error {
	err := s.db.gorm.WithContext(ctx).Model(&triggerRequestRow{}).
		Where("trigger_id = ? AND request_id = ?", id, key).Update("run_id", runID).Error
	if err != nil {
		return fmt.Errorf("sqlstore: trigger request run: %w", err)
	}
	return nil
}

// ReleaseRequest forgets a claimed request id that has no run.
func (s *TriggerStore) ReleaseRequest(ctx context.Context, id int64, key string) error {
	err := s.db.gorm.WithContext(ctx).Where("trigger_id = ? AND request_id = ? AND run_id = 0", id, key).
		Delete(&triggerRequestRow{}).Error
	if err != nil {
		return fmt.Errorf("sqlstore: release trigger request: %w", err)
	}
	return nil
}

// PruneRequests forgets the request ids claimed before a time.
func (s *TriggerStore) PruneRequests(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.gorm.WithContext(ctx).Where("created_at < ?", dbTime(before)).Delete(&triggerRequestRow{})
	if res.Error != nil {
		return 0, fmt.Errorf("sqlstore: prune trigger requests: %w", res.Error)
	}
	return res.RowsAffected, nil
}
