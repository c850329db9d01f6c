package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// Publisher puts a message on a topic of the work queue; memory.Queue and
// redis.Queue implement it.
type Publisher interface {
	Publish(ctx context.Context, topic string, payload []byte) (string, error)
}

// RunTopic is the queue topic of async runs.
const RunTopic = "workflow-runs"

// QueuedOwner leases a run waiting on the queue: a worker may claim it at
// once (RunStates.Claim takes it as free, and counts no attempt for it),
// and if nobody does before the lease ends the run is queued again.
const QueuedOwner = "queued"

// runMessage is the payload of a queued run.
type runMessage struct {
	RunID int64 `json:"run_id"`
}

// RunAsync checks a run as Run does, stores it as running and queues it
// for a worker of any process; it answers at once with the run, whose
// history shows its progress. It returns errs.ErrUnavailable when this
// process has no queue or durable state, and the errors of Prepare. When
// the queue refuses the run (a *errs.QueueFullError, matching
// errs.ErrRateLimited, when too many runs wait) the run is stored as
// failed, never started, and the error says the server is busy.
func (s *Service) RunAsync(ctx context.Context, p identity.Principal, req RunRequest) (*workflow.Run, error) {
	if s.d.Queue == nil || s.d.States == nil {
		return nil, errs.New(errs.ErrUnavailable, "asynchronous runs are not available in this process")
	}
	req.Mode, req.Stream = workflow.RunAsync, false
	pr, err := s.Prepare(ctx, p, req)
	if err != nil {
		return nil, err
	}
	run, err := pr.start(ctx, workflow.RunRunning, QueuedOwner)
	if err != nil {
		return nil, err
	}
	if err := s.enqueue(ctx, run.ID); err != nil {
		return s.withdraw(ctx, run, err)
	}
	return run, nil
}

// withdraw takes back a run the queue did not accept, so that no run is
// left waiting for a worker that will never come: it is stored as failed,
// saying why, and the queue's error returns. If a worker holds the run
// already, the message did reach the queue (the error came after it) and
// the run is accepted after all.
func (s *Service) withdraw(ctx context.Context, run *workflow.Run, cause error) (*workflow.Run, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	now := time.Now()
	_, err := s.d.States.Claim(ctx, run.ID, s.d.Owner, now, now.Add(s.d.Lease))
	if errors.Is(err, errs.ErrConflict) {
		return run, nil
	}
	if err == nil {
		err = s.failRun(ctx, run, "not started: the queue did not take it: "+cause.Error())
	}
	if err != nil { // the run stays queued: Reap queues it again
		s.d.Log.Error("could not withdraw a workflow run the queue refused", "run", run.ID, "err", err)
	}
	return nil, notStarted(run.ID, cause)
}

func (s *Service) enqueue(ctx context.Context, runID int64) error {
	b, _ := json.Marshal(runMessage{RunID: runID})
	if _, err := s.d.Queue.Publish(ctx, RunTopic, b); err != nil {
		return fmt.Errorf("queue run %d: %w", runID, err)
	}
	return nil
}

// notStarted says why a run was not started, keeping the queue's error
// for errors.Is and errors.As.
func notStarted(runID int64, cause error) error {
	var full *errs.QueueFullError
	if errors.As(cause, &full) {
		return fmt.Errorf("the server is busy and run %d was not started; retry in a few seconds (%w)", runID, full)
	}
	return fmt.Errorf("run %d was not started: %w", runID, cause)
}

// HandleRun is the queue handler of async runs: it claims the run (a run
// another process holds, or that ended, is acknowledged and left alone)
// and runs it to its end or its next interrupt. A run restarted after its
// process died runs again from its start: the records of the nodes the
// first attempt finished stay in its history, followed by the new ones.
func (s *Service) HandleRun(ctx context.Context, payload []byte) error {
	var m runMessage
	if err := json.Unmarshal(payload, &m); err != nil || m.RunID == 0 {
		s.d.Log.Warn("dropped a malformed workflow run message", "payload", string(payload))
		return nil
	}
	run, err := s.d.Runs.GetRun(ctx, m.RunID)
	if errors.Is(err, errs.ErrNotFound) || err == nil && run.Status != workflow.RunRunning {
		return nil // gone, or ended (e.g. withdrawn when its publish failed)
	}
	if err != nil {
		return err
	}
	now := time.Now()
	st, err := s.d.States.Claim(ctx, m.RunID, s.d.Owner, now, now.Add(s.d.Lease))
	if errors.Is(err, errs.ErrConflict) || errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Cancel || st.Attempts > s.d.MaxAttempts {
		return s.giveUp(ctx, run, st)
	}
	w, err := s.d.Store.GetWorkflow(ctx, run.WorkflowID)
	if err != nil {
		return s.failRun(ctx, run, "its workflow is gone: "+err.Error())
	}
	j, err := s.jobOf(ctx, w, run, st)
	if err != nil {
		return s.failRun(ctx, run, err.Error())
	}
	if st.Attempts > 1 {
		s.d.Log.Info("restarting a workflow run whose process stopped", "run", run.ID, "attempt", st.Attempts)
	}
	j.background = true
	_, err = s.execute(ctx, j, nil)
	return err
}

// giveUp ends a claimed run that was cancelled before it ran, or whose
// processes died too often.
func (s *Service) giveUp(ctx context.Context, run *workflow.Run, st *RunState) error {
	if st.Cancel {
		run.Status, run.Error = workflow.RunCancelled, "the run was cancelled"
		return s.store(ctx, run)
	}
	return s.failRun(ctx, run, fmt.Sprintf("the run was started %d times and its process stopped each time; giving up", st.Attempts-1))
}

// failRun marks a run failed with a reason.
func (s *Service) failRun(ctx context.Context, run *workflow.Run, reason string) error {
	run.Status, run.Error = workflow.RunFailed, reason
	return s.store(ctx, run)
}

// store writes a run's final status and frees its lease.
func (s *Service) store(ctx context.Context, run *workflow.Run) error {
	run.FinishedAt = nil
	if err := s.d.Runs.FinishRun(ctx, run); err != nil {
		return fmt.Errorf("finish run %d: %w", run.ID, err)
	}
	if err := s.d.States.Release(ctx, run.ID, s.d.Owner); err != nil {
		return fmt.Errorf("finish run %d: %w", run.ID, err)
	}
	return nil
}

// Reap deals with runs whose process stopped renewing their lease: an
// async run is queued again (or failed after MaxAttempts), any other run
// (its client waited on the process that died) is marked failed with the
// reason; so are the direct runs of processes whose heartbeat stopped.
// Workers call it periodically; it is safe on every process at once.
func (s *Service) Reap(ctx context.Context) error {
	if err := s.reapOrphans(ctx); err != nil {
		return err
	}
	if s.d.States == nil {
		return nil
	}
	now := time.Now()
	runs, err := s.d.States.Expired(ctx, now, 100)
	if err != nil {
		return err
	}
	for _, run := range runs {
		if run.Mode == workflow.RunAsync && s.d.Queue != nil {
			if _, err := s.d.States.Claim(ctx, run.ID, QueuedOwner, now, now.Add(s.d.Lease)); err != nil {
				continue // another process got it first
			}
			if err := s.enqueue(ctx, run.ID); err != nil {
				return err
			}
			continue
		}
		if _, err := s.d.States.Claim(ctx, run.ID, s.d.Owner, now, now.Add(s.d.Lease)); err != nil {
			continue
		}
		if err := s.failRun(ctx, run, OrphanedRunMessage); err != nil {
			return err
		}
	}
	return nil
}

// Cancel stops a run: an interrupted run, or one queued, at once; a
// running one at its next node, on whichever process runs it (within a
// third of the lease). It returns the run as stored, errs.ErrNotFound as
// RunHistory does, and errs.ErrConflict for a run that already ended.
func (s *Service) Cancel(ctx context.Context, p identity.Principal, workflowID, runID int64) (*workflow.Run, error) {
	if s.d.States == nil {
		return nil, errs.New(errs.ErrUnavailable, "cancelling runs is not available in this process")
	}
	_, run, err := s.reachRun(ctx, p, workflowID, runID)
	if err != nil {
		return nil, err
	}
	switch run.Status {
	case workflow.RunInterrupted:
		st, err := s.d.States.GetRunState(ctx, runID)
		if err != nil {
			return nil, err
		}
		if _, err := s.d.States.TakeInterrupt(ctx, runID, st.EventID, s.d.Owner, time.Now().Add(s.d.Lease)); err != nil {
			return nil, err
		}
		run.Status, run.Error = workflow.RunCancelled, "the run was cancelled"
		return run, s.store(ctx, run)
	case workflow.RunRunning:
		err := s.d.States.RequestCancel(ctx, runID)
		if errors.Is(err, errs.ErrNotFound) { // a direct run: it has no state
			return nil, errs.Conflict("run %d belongs to the synchronous request that started it: it stops when that request's client leaves", runID)
		}
		if err != nil {
			return nil, err
		}
		return run, nil
	}
	return nil, errs.Conflict("run %s has ended (%s)", strconv.FormatInt(runID, 10), run.Status)
}
