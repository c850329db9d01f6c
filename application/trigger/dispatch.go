package trigger

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	appwf "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// dueBatch is how many due schedules one pass reads.
const dueBatch = 100

// Dispatch runs the schedules until ctx ends, looking for due ticks every
// poll. Every process runs it; Claim lets exactly one take each tick.
func (s *Service) Dispatch(ctx context.Context, poll time.Duration) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var pruned time.Time
	for {
		if _, err := s.DispatchDue(ctx); err != nil && ctx.Err() == nil {
			s.d.Log.Warn("trigger dispatch failed", "err", err)
		}
		if now := s.d.Now(); now.Sub(pruned) >= pruneEvery {
			pruned = now
			s.pruneRequests(ctx, now)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// RequestMemory is how long a webhook call's request id and signature
// are remembered: a repeat within it answers the first call's run.
const RequestMemory = 24 * time.Hour

// pruneEvery is how often each process forgets older request ids.
const pruneEvery = 10 * time.Minute

// pruneRequests forgets the request ids older than RequestMemory.
func (s *Service) pruneRequests(ctx context.Context, now time.Time) {
	n, err := s.d.Store.PruneRequests(ctx, now.Add(-RequestMemory))
	if err != nil && ctx.Err() == nil {
		s.d.Log.Warn("could not forget old webhook request ids", "err", err)
	}
	if n > 0 {
		s.d.Log.Info("forgot old webhook request ids", "count", n)
	}
}

// DispatchDue claims and fires the schedules due now; it returns how many
// ticks this process claimed.
func (s *Service) DispatchDue(ctx context.Context) (int, error) {
	now := s.d.Now()
	due, err := s.d.Store.Due(ctx, now, dueBatch)
	if err != nil {
		return 0, err
	}
	// Processes read the same due ticks in the same order; each takes
	// them in an order of its own so that they mostly claim different
	// ones instead of racing for each.
	rand.Shuffle(len(due), func(i, j int) { due[i], due[j] = due[j], due[i] })
	claimed := 0
	for i := range due {
		won, err := s.fireDue(ctx, &due[i], now)
		if err != nil {
			s.d.Log.Warn("trigger tick failed", "trigger", due[i].ID, "err", err)
		}
		if won {
			claimed++
		}
	}
	return claimed, nil
}

// fireDue claims the due tick of t and, when this process won it, runs
// the workflow or the bot, unless the tick was missed and t skips missed
// ticks.
func (s *Service) fireDue(ctx context.Context, t *trigger.Trigger, now time.Time) (bool, error) {
	sch, err := trigger.ParseSchedule(t, s.d.MinInterval)
	if err != nil {
		return false, s.d.Store.SetState(ctx, t.ID, trigger.StatePaused, "bad schedule: "+err.Error(), nil)
	}
	tick := *t.NextRun
	next := sch.AfterMissed(tick, now)
	if next.IsZero() { // stored before First refused expressions that never fire
		return false, s.d.Store.SetState(ctx, t.ID, trigger.StatePaused, "bad schedule: the cron expression never fires", nil)
	}
	won, err := s.d.Store.Claim(ctx, t.ID, tick, next)
	if err != nil || !won {
		return false, err
	}
	if now.Sub(tick) > s.d.Grace && t.Missed == trigger.MissedSkip {
		s.d.Log.Info("trigger skipped a missed tick", "trigger", t.ID, "tick", tick)
		return true, nil
	}
	if t.IsBot() {
		return true, s.fireBot(ctx, t, tick, now)
	}
	_, err = s.fire(ctx, t, t.Inputs, now)
	return true, err
}

// fire starts an async run of t's workflow with inputs, records the
// outcome on t, and pauses t when its workflow is gone or unpublished.
func (s *Service) fire(ctx context.Context, t *trigger.Trigger, inputs map[string]any, now time.Time) (int64, error) {
	run, err := s.d.Runner.RunAsync(ctx, creator(t), runRequest(t, inputs))
	o := trigger.Outcome{At: now, Status: trigger.StatusStarted}
	if run != nil {
		o.RunID = run.ID
	}
	if err != nil {
		o.Status, o.Error = trigger.StatusFailed, err.Error()
	}
	rerr := s.d.Store.Record(ctx, t.ID, o)
	if err != nil {
		s.pauseIfGone(ctx, t, err) // after the record: a paused trigger shows why
	}
	return o.RunID, errors.Join(err, rerr)
}

// creator is the principal runs of t run as: its creator, whose
// membership of the workspace is checked at every run.
func creator(t *trigger.Trigger) identity.Principal {
	return identity.Principal{UserID: t.CreatorID, Scopes: []string{identity.ScopeWorkflow}}
}

// runRequest asks for a run of t's workflow's latest published version;
// its end user is "trigger:<id>", which marks the run as the trigger's in
// the run history.
func runRequest(t *trigger.Trigger, inputs map[string]any) appwf.RunRequest {
	return appwf.RunRequest{WorkflowID: t.WorkflowID, Params: inputs, UserID: t.UserID()}
}

// pauseIfGone pauses t when err says its workflow cannot be run any more:
// deleted (or its creator left the workspace), or not published.
func (s *Service) pauseIfGone(ctx context.Context, t *trigger.Trigger, err error) {
	var fe *errs.FieldError
	reason := ""
	switch {
	case errors.Is(err, errs.ErrNotFound):
		reason = "workflow deleted or out of reach: " + err.Error()
	case errors.As(err, &fe) && fe.Field == "workflow_id":
		reason = "workflow not published: " + err.Error()
	default:
		return
	}
	if perr := s.d.Store.SetState(ctx, t.ID, trigger.StatePaused, reason, nil); perr != nil {
		s.d.Log.Warn("could not pause a trigger", "trigger", t.ID, "err", perr)
	}
}
