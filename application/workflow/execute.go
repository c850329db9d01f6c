package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// job is one stretch of a run on this process: its first start, a resume
// after an answer, or a restart after its process died.
type job struct {
	run      *workflow.Run
	compiled *wf.Compiled
	caller   identity.Principal
	params   map[string]any
	resume   *wf.Checkpoint
	stream   bool
	draft    bool
	// background marks a worker's job: when the worker stops (the process
	// shuts down) the run is left leased, for another process to take up
	// once the lease ends, rather than recorded as failed.
	background bool
	// unleased marks a direct run that may wait (see Prepared.direct): it
	// holds no lease, so nothing is renewed or released.
	unleased bool
}

// execute runs a job whose run this process leases, renewing the lease
// while it runs (unless the job is unleased), and stores the outcome.
func (s *Service) execute(ctx context.Context, j job, events wf.EventSink) (*Outcome, error) {
	run := j.run
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopBeat := func() {}
	if !j.unleased {
		stopBeat = s.heartbeat(runCtx, run.ID, cancel)
	}
	scope := wf.Scope{WorkspaceID: run.WorkspaceID, WorkflowID: run.WorkflowID, BotID: run.BotID, AppID: run.AppID,
		ConversationID: run.ConversationID, UserID: run.UserID,
		ConnectorID: run.ConnectorID, Draft: j.draft}
	start := time.Now()
	res, err := s.d.Engine.Run(withCaller(runCtx, j.caller), j.compiled,
		wf.RunInput{RunID: run.ID, Params: j.params, Stream: j.stream, Events: events, Scope: scope, Resume: j.resume})
	stopBeat()
	out := outcomeOf(run, res, err)
	if out.Failure != nil && j.background && ctx.Err() != nil {
		s.d.Log.Info("workflow run left for another process: this one stops", "run", run.ID)
		return out, ctx.Err()
	}
	if cause := context.Cause(runCtx); out.Failure != nil && errors.Is(cause, errLeaseLost) {
		s.d.Log.Warn("workflow run lost its lease; another process runs it", "run", run.ID)
		return out, nil
	} else if out.Failure != nil && errors.Is(cause, ErrCancelled) {
		run.Status = workflow.RunCancelled
	}
	err = s.finish(ctx, out, !j.unleased)
	if s.d.Tracer != nil {
		s.d.Tracer.RunEnded(ctx, out, start, j.resume != nil)
	}
	return out, err
}

// The causes of a run stopped by its heartbeat. ErrCancelled is also the
// cause a caller cancels a run's context with to have the run stored as
// cancelled rather than failed (an MCP client that cancelled its call).
var (
	ErrCancelled = errors.New("the run was cancelled")
	errLeaseLost = errors.New("the run's lease was lost")
)

// heartbeat renews the run's lease every third of it until stop is
// called; a cancel request or a lost lease stops the run.
func (s *Service) heartbeat(ctx context.Context, runID int64, cancel context.CancelCauseFunc) (stop func()) {
	if s.d.States == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(s.d.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			cancelled, err := s.d.States.Renew(context.WithoutCancel(ctx), runID, s.d.Owner, time.Now().Add(s.d.Lease))
			switch {
			case cancelled:
				cancel(ErrCancelled)
			case err != nil && errors.Is(err, errs.ErrConflict):
				cancel(errLeaseLost)
			case err != nil:
				s.d.Log.Warn("workflow run lease not renewed", "run", runID, "err", err)
			}
		}
	}()
	return func() { close(done) }
}

// finish stores the outcome: the node records first, then the run and,
// for an interrupt, its checkpoint under a new event id; it releases a
// leased run's lease. It does so even when ctx was cancelled (a client
// that left), within a bound of its own.
func (s *Service) finish(ctx context.Context, out *Outcome, leased bool) error {
	run := out.Run
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	if s.d.History != nil {
		if err := s.d.History.Flush(ctx); err != nil {
			s.d.Log.Warn("workflow node records not flushed", "run", run.ID, "err", err)
		}
		s.d.History.Forget(run.ID)
	}
	if out.Interrupt != nil && run.Status != workflow.RunCancelled && out.Failure == nil {
		if err := s.saveInterrupt(ctx, out); err != nil {
			return err
		}
	}
	settle(out)
	if err := s.d.Runs.FinishRun(ctx, run); err != nil {
		return fmt.Errorf("finish run %d: %w", run.ID, err)
	}
	if leased && s.d.States != nil && out.Interrupt == nil {
		if err := s.d.States.Release(ctx, run.ID, s.d.Owner); err != nil {
			s.d.Log.Warn("workflow run lease not released", "run", run.ID, "err", err)
		}
	}
	return nil
}

// saveInterrupt stores the checkpoint of an interrupted run under a fresh
// event id, "<execute_id>/<n>": every interrupt has its own, so an answer
// given twice finds its event consumed.
func (s *Service) saveInterrupt(ctx context.Context, out *Outcome) error {
	out.EventID = strconv.FormatInt(out.Run.ID, 10) + "/" + strconv.FormatInt(s.d.IDs.Next(), 10)
	if s.d.States == nil {
		return nil
	}
	in, _ := json.Marshal(out.Interrupt)
	cp, err := out.Result.Checkpoint.Marshal()
	if err != nil {
		return fmt.Errorf("checkpoint of run %d: %w", out.Run.ID, err)
	}
	if err := s.d.States.SaveInterrupt(ctx, out.Run.ID, out.EventID, in, cp); err != nil {
		return fmt.Errorf("checkpoint of run %d: %w", out.Run.ID, err)
	}
	return nil
}

// defaultOwner names this process in leases.
func defaultOwner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%d", host, os.Getpid(), time.Now().UnixNano()%1e6)
}
