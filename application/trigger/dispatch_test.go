package trigger

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	appwf "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// memStore keeps one trigger.
type memStore struct {
	trigger.Store
	mu sync.Mutex
	t  trigger.Trigger
}

// get returns a copy of the trigger.
func (m *memStore) get() trigger.Trigger {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

func (m *memStore) Due(_ context.Context, now time.Time, _ int) ([]trigger.Trigger, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.t.State == trigger.StateActive && m.t.NextRun != nil && !m.t.NextRun.After(now) {
		return []trigger.Trigger{m.t}, nil
	}
	return nil, nil
}

func (m *memStore) Claim(_ context.Context, _ int64, tick, next time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.t.NextRun == nil || !m.t.NextRun.Equal(tick) {
		return false, nil
	}
	m.t.NextRun = &next
	return true, nil
}

func (m *memStore) Record(_ context.Context, _ int64, o trigger.Outcome) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t.LastRunID, m.t.LastStatus, m.t.LastError = o.RunID, o.Status, o.Error
	if o.ConversationID != 0 {
		m.t.ConversationID = o.ConversationID
	}
	return nil
}

func (m *memStore) SetState(_ context.Context, _ int64, s trigger.State, reason string, next *time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.t.State, m.t.PauseReason, m.t.NextRun = s, reason, next
	return nil
}

// countRunner counts runs; gone makes them fail as for a deleted workflow.
type countRunner struct {
	Runner
	runs int
	gone bool
}

func (r *countRunner) RunAsync(context.Context, identity.Principal, appwf.RunRequest) (*workflow.Run, error) {
	if r.gone {
		return nil, workflow.NotFound(7)
	}
	r.runs++
	return &workflow.Run{ID: int64(r.runs)}, nil
}

func dispatchOnce(t *testing.T, missed trigger.Missed, late time.Duration, gone bool) (*memStore, *countRunner) {
	t.Helper()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tick := now.Add(-late)
	st := &memStore{t: trigger.Trigger{ID: 1, Kind: trigger.KindSchedule, WorkflowID: 7, Interval: time.Minute,
		Missed: missed, State: trigger.StateActive, NextRun: &tick}}
	run := &countRunner{gone: gone}
	svc := New(Deps{Store: st, Runner: run, Now: func() time.Time { return now }})
	n, err := svc.DispatchDue(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("DispatchDue = %d, %v; want the tick claimed", n, err)
	}
	if !gone && !st.t.NextRun.After(now) {
		t.Errorf("next run %v is not after now %v", st.t.NextRun, now)
	}
	return st, run
}

func TestDispatchMissedTicks(t *testing.T) {
	if _, r := dispatchOnce(t, trigger.MissedSkip, 3*time.Hour, false); r.runs != 0 {
		t.Errorf("skip, 3h of missed ticks: %d runs, want 0", r.runs)
	}
	if _, r := dispatchOnce(t, trigger.MissedRunOnce, 3*time.Hour, false); r.runs != 1 {
		t.Errorf("run_once, 3h of missed ticks: %d runs, want 1", r.runs)
	}
	if _, r := dispatchOnce(t, trigger.MissedSkip, 2*time.Second, false); r.runs != 1 {
		t.Errorf("skip, a tick 2s late: %d runs, want 1 (late is not missed)", r.runs)
	}
}

func TestDispatchPausesWhenWorkflowIsGone(t *testing.T) {
	st, _ := dispatchOnce(t, trigger.MissedSkip, time.Second, true)
	if st.t.State != trigger.StatePaused || st.t.PauseReason == "" || st.t.LastStatus != trigger.StatusFailed || st.t.NextRun != nil {
		t.Errorf("trigger of a deleted workflow = %+v", st.t)
	}
}

// TestDispatchPausesAScheduleThatCannotFire: schedules stored before
// their forms were refused (an "@every 1s" under a minute's minimum, a
// cron expression that matches no date) are paused saying why, instead
// of firing every second or being claimed again at every poll.
func TestDispatchPausesAScheduleThatCannotFire(t *testing.T) {
	for _, expr := range []string{"@every 1s", "0 0 30 2 *"} {
		zero := time.Time{}
		st := &memStore{t: trigger.Trigger{ID: 1, Kind: trigger.KindSchedule, WorkflowID: 7, Cron: expr,
			Missed: trigger.MissedSkip, State: trigger.StateActive, NextRun: &zero}}
		run := &countRunner{}
		svc := New(Deps{Store: st, Runner: run})
		if _, err := svc.DispatchDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := st.get(); got.State != trigger.StatePaused || !strings.Contains(got.PauseReason, "bad schedule") || run.runs != 0 {
			t.Errorf("%q: trigger %s (%q) after %d runs; want paused for its schedule, no run", expr, got.State, got.PauseReason, run.runs)
		}
	}
}
