package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// WorkflowRunStateStore keeps the durable state of workflow runs (leases,
// cancel requests, interrupts and checkpoints) in workflow_checkpoints.
type WorkflowRunStateStore struct{ db *DB }

var _ workflowapp.RunStates = (*WorkflowRunStateStore)(nil)

// WorkflowRunStates returns the store of run states.
func (db *DB) WorkflowRunStates() *WorkflowRunStateStore { return &WorkflowRunStateStore{db: db} }

type runStateRow struct {
	RunID      int64 `gorm:"primaryKey;autoIncrement:false"`
	Caller     string
	EventID    string
	Interrupt  string
	Checkpoint string
	LeaseOwner string
	LeaseUntil *time.Time
	Attempts   int
	Cancel     bool
	UpdatedAt  time.Time
}

func (runStateRow) TableName() string { return "workflow_checkpoints" }

func stateFromRow(r *runStateRow) *workflowapp.RunState {
	return &workflowapp.RunState{RunID: r.RunID, Caller: []byte(r.Caller), EventID: r.EventID, Interrupt: []byte(r.Interrupt),
		Checkpoint: []byte(r.Checkpoint), LeaseOwner: r.LeaseOwner, LeaseUntil: utcPtr(r.LeaseUntil), Attempts: r.Attempts, Cancel: r.Cancel}
}

// CreateRunState stores a new run's state; errs.ErrNotFound for an unknown
// run, errs.ErrConflict when it has one.
func (s *WorkflowRunStateStore) CreateRunState(ctx context.Context, st *workflowapp.RunState) error {
	row := &runStateRow{RunID: st.RunID, Caller: string(st.Caller), EventID: st.EventID, Interrupt: string(st.Interrupt),
		Checkpoint: string(st.Checkpoint), LeaseOwner: st.LeaseOwner, LeaseUntil: dbTimePtr(st.LeaseUntil),
		Attempts: st.Attempts, Cancel: st.Cancel, UpdatedAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Create(row).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return runNotFound(st.RunID)
	case isDuplicate(err):
		return errs.Conflict("run %d already has a state", st.RunID)
	}
	return fmt.Errorf("sqlstore: create workflow run state: %w", err)
}

// GetRunState returns a run's state, or errs.ErrNotFound.
func (s *WorkflowRunStateStore) GetRunState(ctx context.Context, runID int64) (*workflowapp.RunState, error) {
	var row runStateRow
	if err := s.db.gorm.WithContext(ctx).Where("run_id = ?", runID).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, runNotFound(runID)
		}
		return nil, fmt.Errorf("sqlstore: get workflow run state: %w", err)
	}
	return stateFromRow(&row), nil
}

// Claim leases a free or expired run; see workflowapp.RunStates.
func (s *WorkflowRunStateStore) Claim(ctx context.Context, runID int64, owner string, now, until time.Time) (*workflowapp.RunState, error) {
	return s.take(ctx, runID, "claim", func(tx *gorm.DB) *gorm.DB {
		inc := 1
		if owner == workflowapp.QueuedOwner {
			inc = 0
		}
		return tx.Where("run_id = ? AND event_id = '' AND (lease_owner = '' OR lease_owner = ? OR lease_until < ?)",
			runID, workflowapp.QueuedOwner, dbTime(now)).
			UpdateColumns(map[string]any{"lease_owner": owner, "lease_until": dbTime(until), "attempts": gorm.Expr("attempts + ?", inc),
				"updated_at": s.db.timestamp()})
	})
}

// TakeInterrupt consumes the pending interrupt; see workflowapp.RunStates.
func (s *WorkflowRunStateStore) TakeInterrupt(ctx context.Context, runID int64, eventID, owner string, until time.Time) (*workflowapp.RunState, error) {
	return s.take(ctx, runID, "take interrupt", func(tx *gorm.DB) *gorm.DB {
		return tx.Where("run_id = ? AND event_id = ? AND event_id <> ''", runID, eventID).
			UpdateColumns(map[string]any{"event_id": "", "lease_owner": owner, "lease_until": dbTime(until), "updated_at": s.db.timestamp()})
	})
}

// take reads the state, runs a conditional update and, when it changed
// the row, marks the run running again; all in one transaction.
func (s *WorkflowRunStateStore) take(ctx context.Context, runID int64, what string, update func(*gorm.DB) *gorm.DB) (*workflowapp.RunState, error) {
	var out *workflowapp.RunState
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var row runStateRow
		if err := tx.Where("run_id = ?", runID).Take(&row).Error; err != nil {
			if isNoRow(err) {
				return runNotFound(runID)
			}
			return err
		}
		res := update(tx.Model(&runStateRow{}))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.Conflict("run %d is taken: it is running elsewhere, finished, or not waiting for this answer", runID)
		}
		if err := tx.Model(&workflowRunRow{}).Where("id = ?", runID).
			UpdateColumns(map[string]any{"status": string(workflow.RunRunning), "finished_at": nil, "updated_at": s.db.timestamp()}).Error; err != nil {
			return err
		}
		out = stateFromRow(&row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlstore: %s of workflow run %d: %w", what, runID, err)
	}
	return out, nil
}

// Renew extends owner's lease and reports a cancel request.
func (s *WorkflowRunStateStore) Renew(ctx context.Context, runID int64, owner string, until time.Time) (bool, error) {
	res := s.db.gorm.WithContext(ctx).Model(&runStateRow{}).Where("run_id = ? AND lease_owner = ?", runID, owner).
		UpdateColumns(map[string]any{"lease_until": dbTime(until), "updated_at": s.db.timestamp()})
	if res.Error != nil {
		return false, fmt.Errorf("sqlstore: renew workflow run lease: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return false, errs.Conflict("run %d is no longer leased to %s", runID, owner)
	}
	st, err := s.GetRunState(ctx, runID)
	if err != nil {
		return false, err
	}
	return st.Cancel, nil
}

// Release frees owner's lease.
func (s *WorkflowRunStateStore) Release(ctx context.Context, runID int64, owner string) error {
	err := s.db.gorm.WithContext(ctx).Model(&runStateRow{}).Where("run_id = ? AND lease_owner = ?", runID, owner).
		UpdateColumns(map[string]any{"lease_owner": "", "lease_until": nil, "updated_at": s.db.timestamp()}).Error
	if err != nil {
		return fmt.Errorf("sqlstore: release workflow run lease: %w", err)
	}
	return nil
}

// SaveInterrupt stores a pending interrupt and frees the lease.
func (s *WorkflowRunStateStore) SaveInterrupt(ctx context.Context, runID int64, eventID string, interrupt, checkpoint []byte) error {
	res := s.db.gorm.WithContext(ctx).Model(&runStateRow{}).Where("run_id = ?", runID).
		UpdateColumns(map[string]any{"event_id": eventID, "interrupt": string(interrupt), "checkpoint": string(checkpoint),
			"lease_owner": "", "lease_until": nil, "updated_at": s.db.timestamp()})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: save workflow interrupt: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return runNotFound(runID)
	}
	return nil
}

// RequestCancel flags a run for cancelling.
func (s *WorkflowRunStateStore) RequestCancel(ctx context.Context, runID int64) error {
	res := s.db.gorm.WithContext(ctx).Model(&runStateRow{}).Where("run_id = ?", runID).
		UpdateColumns(map[string]any{"cancel": true, "updated_at": s.db.timestamp()})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: cancel workflow run: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return runNotFound(runID)
	}
	return nil
}

// Expired lists running runs whose lease ended before now, oldest lease
// first.
func (s *WorkflowRunStateStore) Expired(ctx context.Context, now time.Time, limit int) ([]*workflow.Run, error) {
	var rows []workflowRunRow
	err := s.db.gorm.WithContext(ctx).Model(&workflowRunRow{}).
		Joins("JOIN workflow_checkpoints c ON c.run_id = workflow_runs.id").
		Where("workflow_runs.status = ? AND c.event_id = '' AND c.lease_until < ?", string(workflow.RunRunning), dbTime(now)).
		Order("c.lease_until").Limit(limit).Select("workflow_runs.*").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list expired workflow runs: %w", err)
	}
	out := make([]*workflow.Run, len(rows))
	for i := range rows {
		out[i] = runFromRow(&rows[i])
	}
	return out, nil
}
