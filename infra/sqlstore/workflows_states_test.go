package sqlstore

import (
	"context"
	"testing"
	"time"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

func TestWorkflowRunStateStore(t *testing.T) { forEachBackend(t, testWorkflowRunStateStore) }

func testWorkflowRunStateStore(t *testing.T, db *DB) {
	ctx := context.Background()
	states, runs := db.WorkflowRunStates(), db.WorkflowRuns()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	w := newStoredWorkflow(t, db, ws.ID, ada.ID, "leased")
	run := &workflow.Run{ID: db.ids.Next(), WorkflowID: w.ID, WorkspaceID: ws.ID, Mode: workflow.RunAsync, Status: workflow.RunRunning}
	mustNot(t, runs.CreateRun(ctx, run))
	now := time.Now()
	queued := now.Add(time.Minute)
	mustNot(t, states.CreateRunState(ctx, &workflowapp.RunState{RunID: run.ID, Caller: []byte(`{"UserID":1}`),
		LeaseOwner: workflowapp.QueuedOwner, LeaseUntil: &queued}))
	wantErr(t, states.CreateRunState(ctx, &workflowapp.RunState{RunID: run.ID}), errs.ErrConflict, "already has a state")
	wantErr(t, states.CreateRunState(ctx, &workflowapp.RunState{RunID: 999}), errs.ErrNotFound, "999")

	// A queued run is claimed at once, by one owner.
	st, err := states.Claim(ctx, run.ID, "p1", now, now.Add(time.Minute))
	mustNot(t, err)
	if string(st.Caller) != `{"UserID":1}` {
		t.Errorf("caller = %s", st.Caller)
	}
	_, err = states.Claim(ctx, run.ID, "p2", now, now.Add(time.Minute))
	wantErr(t, err, errs.ErrConflict, "is taken")
	cancel, err := states.Renew(ctx, run.ID, "p1", now.Add(time.Minute))
	mustNot(t, err)
	if cancel {
		t.Error("a cancel nobody asked for")
	}
	_, err = states.Renew(ctx, run.ID, "p2", now.Add(time.Minute))
	wantErr(t, err, errs.ErrConflict, "no longer leased")

	// An expired lease is listed and claimed by another owner.
	expired, err := states.Expired(ctx, now.Add(2*time.Minute), 10)
	mustNot(t, err)
	if len(expired) != 1 || expired[0].ID != run.ID {
		t.Fatalf("expired = %v", expired)
	}
	st, err = states.Claim(ctx, run.ID, "p2", now.Add(2*time.Minute), now.Add(3*time.Minute))
	mustNot(t, err)
	if got, _ := states.GetRunState(ctx, run.ID); got.Attempts != 2 || got.LeaseOwner != "p2" {
		t.Errorf("after two claims: %+v", got)
	}

	// An interrupt is taken once.
	mustNot(t, states.SaveInterrupt(ctx, run.ID, "e/1", []byte(`{"key":"/q"}`), []byte(`{"done":{}}`)))
	_, err = states.Claim(ctx, run.ID, "p3", now.Add(time.Hour), now.Add(2*time.Hour))
	wantErr(t, err, errs.ErrConflict, "is taken")
	st, err = states.TakeInterrupt(ctx, run.ID, "e/1", "p3", now.Add(time.Minute))
	mustNot(t, err)
	if string(st.Interrupt) != `{"key":"/q"}` || string(st.Checkpoint) != `{"done":{}}` || st.EventID != "e/1" {
		t.Errorf("taken state = %+v", st)
	}
	_, err = states.TakeInterrupt(ctx, run.ID, "e/1", "p3", now.Add(time.Minute))
	wantErr(t, err, errs.ErrConflict, "is taken")
	if got, _ := runs.GetRun(ctx, run.ID); got.Status != workflow.RunRunning {
		t.Errorf("a resumed run is %s", got.Status)
	}

	mustNot(t, states.RequestCancel(ctx, run.ID))
	if cancel, err = states.Renew(ctx, run.ID, "p3", now.Add(time.Minute)); err != nil || !cancel {
		t.Errorf("renew after a cancel request = %v, %v", cancel, err)
	}
	mustNot(t, states.Release(ctx, run.ID, "p3"))
	if got, _ := states.GetRunState(ctx, run.ID); got.LeaseOwner != "" || got.LeaseUntil != nil {
		t.Errorf("released state = %+v", got)
	}
}
