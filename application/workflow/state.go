package workflow

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/domain/workflow"
)

// RunState is the durable state of one run beside its row: who started it
// (the rights it runs with on any process), the lease of the process
// running it, a cancel request, and for an interrupted run the pending
// interrupt, its event id and the engine's checkpoint.
type RunState struct {
	RunID      int64
	Caller     []byte // the principal, as JSON
	EventID    string // the pending interrupt's; "" when none
	Interrupt  []byte // the pending interrupt, as JSON
	Checkpoint []byte // the engine's checkpoint, as JSON
	LeaseOwner string
	LeaseUntil *time.Time
	Attempts   int // how many times a process claimed the run
	Cancel     bool
}

// RunStates keeps the durable state of runs; *sqlstore.WorkflowRunStateStore
// implements it.
type RunStates interface {
	// CreateRunState stores the state of a new run, leased to owner until
	// until (empty owner: not leased).
	CreateRunState(ctx context.Context, s *RunState) error
	// GetRunState returns a run's state, or errs.ErrNotFound.
	GetRunState(ctx context.Context, runID int64) (*RunState, error)
	// Claim leases a run that waits for no answer and whose lease is free
	// or expired at now, counts an attempt and returns the state; a run
	// leased to another live owner, or waiting, is errs.ErrConflict. It
	// marks the run row running again.
	Claim(ctx context.Context, runID int64, owner string, now, until time.Time) (*RunState, error)
	// Renew extends owner's lease and reports a cancel request; a lease
	// owner no longer holds is errs.ErrConflict.
	Renew(ctx context.Context, runID int64, owner string, until time.Time) (cancel bool, err error)
	// Release frees owner's lease.
	Release(ctx context.Context, runID int64, owner string) error
	// SaveInterrupt stores the pending interrupt of a run and frees its
	// lease.
	SaveInterrupt(ctx context.Context, runID int64, eventID string, interrupt, checkpoint []byte) error
	// TakeInterrupt consumes the pending interrupt eventID, leases the run
	// to owner, marks its row running and returns the state as it was;
	// an event that is not the pending one (answered already) is
	// errs.ErrConflict.
	TakeInterrupt(ctx context.Context, runID int64, eventID, owner string, until time.Time) (*RunState, error)
	// RequestCancel asks the process running a run to stop it.
	RequestCancel(ctx context.Context, runID int64) error
	// Expired lists up to limit runs still running whose lease ended
	// before now.
	Expired(ctx context.Context, now time.Time, limit int) ([]*workflow.Run, error)
}
