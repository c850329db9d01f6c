package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// Runs that hold no lease and may run for long (synchronous runs of
// workflows with models, code or HTTP) name the process instance running
// them; every such process upserts its heartbeat in process_instances
// (one row per process, as chats do), and any process fails the running
// runs of instances whose heartbeat stopped.

// StartRun stores a new run as CreateRun does, run by process instance
// (see FailOrphanedRuns).
func (s *WorkflowRunStore) StartRun(ctx context.Context, r *workflow.Run, instance string) error {
	r.CreatedAt = s.db.timestamp()
	r.UpdatedAt = r.CreatedAt
	row := runRow(r)
	row.Instance = instance
	err := s.db.gorm.WithContext(ctx).Create(row).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workflow.NotFound(r.WorkflowID)
	case isDuplicate(err):
		return errs.Conflict("run %d already exists", r.ID)
	}
	return fmt.Errorf("sqlstore: start workflow run: %w", err)
}

// Beat records that process instance is alive now.
func (s *WorkflowRunStore) Beat(ctx context.Context, instance string) error {
	row := processInstanceRow{ID: instance, HeartbeatAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"heartbeat_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("sqlstore: workflow heartbeat: %w", err)
	}
	return nil
}

// Forget removes the heartbeat of process instance, which stops cleanly.
func (s *WorkflowRunStore) Forget(ctx context.Context, instance string) error {
	err := s.db.gorm.WithContext(ctx).Where("id = ?", instance).Delete(&processInstanceRow{}).Error
	if err != nil {
		return fmt.Errorf("sqlstore: forget workflow instance: %w", err)
	}
	return nil
}

// FailOrphanedRuns marks failed, with reason, the running runs of every
// process instance but self that has not beaten since aliveSince, and
// returns how many.
func (s *WorkflowRunStore) FailOrphanedRuns(ctx context.Context, self string, aliveSince time.Time, reason string) (int64, error) {
	now := s.db.timestamp()
	alive := s.db.gorm.Model(&processInstanceRow{}).Select("id").Where("heartbeat_at >= ?", dbTime(aliveSince))
	res := s.db.gorm.WithContext(ctx).Model(&workflowRunRow{}).
		Where("status = ? AND instance <> '' AND instance <> ? AND instance NOT IN (?)", string(workflow.RunRunning), self, alive).
		UpdateColumns(map[string]any{"status": string(workflow.RunFailed), "error": reason, "finished_at": now, "updated_at": now})
	if res.Error != nil {
		return 0, fmt.Errorf("sqlstore: fail orphaned workflow runs: %w", res.Error)
	}
	return res.RowsAffected, nil
}
