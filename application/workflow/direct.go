package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// RunWriter stores the runs that hold no lease; *sqlstore.WorkflowRunStore
// implements it.
type RunWriter interface {
	// SaveRun stores a run that has ended with the records of its nodes,
	// in one write; errs.ErrNotFound when the workflow is gone.
	SaveRun(ctx context.Context, r *workflow.Run, nodes []workflow.NodeRun) error
	// StartRun stores a new run as run by process instance, which fails
	// with it once its heartbeat stops (FailOrphanedRuns).
	StartRun(ctx context.Context, r *workflow.Run, instance string) error
	// Beat records that process instance is alive; Forget removes its
	// heartbeat when it stops cleanly.
	Beat(ctx context.Context, instance string) error
	Forget(ctx context.Context, instance string) error
	// FailOrphanedRuns fails, with reason, the running runs of every
	// instance but self that has not beaten since aliveSince.
	FailOrphanedRuns(ctx context.Context, self string, aliveSince time.Time, reason string) (int64, error)
}

// OrphanedRunMessage is the error of a run whose process stopped before
// it ended.
const OrphanedRunMessage = "the process running it stopped before it ended"

// RunModeTool is the mode of runs of a workflow a bot calls as a tool
// (application/wftool, which imports this package, names its runs so).
const RunModeTool workflow.RunMode = "bot"

// direct reports whether the run is a direct one, which holds no lease
// and no heartbeat while it runs: a run that cannot stop for an answer
// (no question or input node anywhere in the workflow, its bodies or its
// sub-workflows) and whose client learns its id only with its outcome: a
// synchronous run (the answer names it), a streamed one (the Done event),
// a test run and a workflow run as a bot's tool. No request can name it
// while it runs, and it runs on this process only, so no other process
// needs its state. Async runs are queued and chatflow runs name their id
// when they start (the chat's): those hold a lease, and can be cancelled
// while they run.
//
// A direct run that runs in the engine alone (wf.Compiled.MayWait is
// false) lasts microseconds: it is stored once, when it ends, with its
// node records in the same write (executeDirect); a crash before leaves
// nothing to recover, the client got no answer and no run was stored.
// One that may wait (models, code, HTTP...) is stored when it starts,
// naming this process, and its node records are written as its nodes
// finish, so its history shows its progress; when this process dies,
// the others fail it once its heartbeat stops (Reap).
func (pr *Prepared) direct() bool {
	if pr.s.d.Writer == nil || pr.compiled.CanInterrupt() {
		return false
	}
	switch pr.req.Mode {
	case workflow.RunSync, workflow.RunStream, workflow.RunTest, RunModeTool:
		return true
	}
	return false
}

// executeDirect runs a direct run to its end and stores it, its outcome
// and its node records in one write before answering: what the answer
// reports is stored, and the history reads it at once.
func (pr *Prepared) executeDirect(ctx context.Context, events wf.EventSink) (*Outcome, error) {
	s := pr.s
	run := pr.newRun(workflow.RunRunning)
	run.CreatedAt = time.Now()
	scope := wf.Scope{WorkspaceID: run.WorkspaceID, WorkflowID: run.WorkflowID, BotID: run.BotID, AppID: run.AppID,
		ConversationID: run.ConversationID, UserID: run.UserID,
		ConnectorID: run.ConnectorID, Draft: pr.req.Draft}
	start := time.Now()
	res, err := s.d.Engine.Run(withCaller(ctx, pr.caller), pr.compiled, wf.RunInput{RunID: run.ID, Params: pr.req.Params,
		Stream: pr.req.Stream, Events: events, Scope: scope, OwnHistory: true})
	out := outcomeOf(run, res, err)
	if out.Failure != nil && errors.Is(context.Cause(ctx), ErrCancelled) {
		run.Status = workflow.RunCancelled
	}
	if out.Interrupt != nil { // CanInterrupt said it could not: keep the promise of a finished run
		out.Failure = &wf.RunError{Message: "the run stopped for an answer, which a direct run cannot take", Result: out.Result}
		out.Interrupt = nil
	}
	settle(out)
	if s.d.Tracer != nil {
		s.d.Tracer.RunEnded(ctx, out, start, false)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	if err := s.d.Writer.SaveRun(ctx, run, nodeRuns(run.ID, out.Result.Nodes, historyMaxData)); err != nil {
		return out, fmt.Errorf("store run %d of workflow %d: %w", run.ID, run.WorkflowID, err)
	}
	return out, nil
}

// outcomeOf turns what the engine returned into an outcome: a failure
// (the engine's, or any other error as one), an interrupt, or a result.
func outcomeOf(run *workflow.Run, res *wf.RunResult, err error) *Outcome {
	out := &Outcome{Run: run, Result: res}
	var failure *wf.RunError
	switch {
	case errors.As(err, &failure):
		out.Failure, out.Result = failure, failure.Result
	case err != nil:
		out.Failure = &wf.RunError{Message: err.Error(), Result: &wf.RunResult{}}
		out.Result = out.Failure.Result
	case res.Interrupt != nil:
		out.Interrupt = res.Interrupt
	}
	return out
}

// settle writes the outcome into the run: its status and error, output
// and tokens. A run marked cancelled stays so.
func settle(out *Outcome) {
	run := out.Run
	switch {
	case run.Status == workflow.RunCancelled:
		run.Error = "the run was cancelled"
	case out.Failure != nil:
		run.Status, run.Error = workflow.RunFailed, out.Failure.Error()
	case out.Interrupt != nil:
		run.Status, run.Error = workflow.RunInterrupted, ""
	default:
		run.Status, run.Error = workflow.RunSucceeded, ""
	}
	if res := out.Result; res != nil {
		if res.Output != nil {
			b, _ := json.Marshal(res.Output)
			run.Output = string(b)
		}
		run.InputTokens += res.Usage.InputTokens
		run.OutputTokens += res.Usage.OutputTokens
	}
	run.FinishedAt = nil
}

// nodeRuns numbers a run's records in the order they finished.
func nodeRuns(runID int64, recs []wf.NodeRecord, maxData int) []workflow.NodeRun {
	out := make([]workflow.NodeRun, len(recs))
	for i, rec := range recs {
		rec.RunID = runID
		out[i] = nodeRun(rec, int64(i+1), maxData)
	}
	return out
}
