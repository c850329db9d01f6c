package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

func TestWorkflowRunsWithoutLease(t *testing.T) { forEachBackend(t, testWorkflowRunsWithoutLease) }

// testWorkflowRunsWithoutLease starts runs on three process instances,
// one silent for a minute, and checks that only the silent one's running
// run is failed: not the live one's, not this process's, not a leased
// run, not a run that ended.
func testWorkflowRunsWithoutLease(t *testing.T, db *DB) {
	ctx := context.Background()
	runs := db.WorkflowRuns()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	w := newStoredWorkflow(t, db, ws.ID, ada.ID, "runner")
	start := func(instance string) *workflow.Run {
		r := &workflow.Run{ID: db.ids.Next(), WorkflowID: w.ID, WorkspaceID: ws.ID, Mode: workflow.RunSync, Status: workflow.RunRunning}
		if instance == "" {
			mustNot(t, runs.CreateRun(ctx, r))
		} else {
			mustNot(t, runs.StartRun(ctx, r, instance))
		}
		return r
	}
	silent, live, mine, leased, ended := start("p-silent"), start("p-live"), start("p-me"), start(""), start("p-silent")
	ended.Status = workflow.RunSucceeded
	mustNot(t, runs.FinishRun(ctx, ended))
	wantErr(t, runs.StartRun(ctx, silent, "p-live"), errs.ErrConflict, "already exists")
	mustNot(t, runs.Beat(ctx, "p-live"))
	mustNot(t, runs.Beat(ctx, "p-silent"))
	mustNot(t, db.gorm.Model(&processInstanceRow{}).Where("id = ?", "p-silent").
		Update("heartbeat_at", dbTime(time.Now().Add(-time.Minute))).Error)

	n, err := runs.FailOrphanedRuns(ctx, "p-me", time.Now().Add(-30*time.Second), "the process running it stopped before it ended")
	mustNot(t, err)
	if n != 1 {
		t.Fatalf("FailOrphanedRuns failed %d runs, want 1", n)
	}
	got, _ := runs.GetRun(ctx, silent.ID)
	if got.Status != workflow.RunFailed || got.Error != "the process running it stopped before it ended" || got.FinishedAt == nil {
		t.Fatalf("the silent instance's run is %+v", got)
	}
	for _, r := range []*workflow.Run{live, mine, leased} {
		if got, _ := runs.GetRun(ctx, r.ID); got.Status != workflow.RunRunning {
			t.Fatalf("run %d was %s, want still running", r.ID, got.Status)
		}
	}
	if got, _ := runs.GetRun(ctx, ended.ID); got.Status != workflow.RunSucceeded {
		t.Fatalf("an ended run became %s", got.Status)
	}
	mustNot(t, runs.Forget(ctx, "p-live"))
	if n, _ := runs.FailOrphanedRuns(ctx, "p-me", time.Now().Add(-30*time.Second), "gone"); n != 1 {
		t.Fatalf("after p-live forgot its heartbeat, %d of its runs failed; want 1", n)
	}
}

// TestNodeRunsOfAStartedRun lists the records of a run stored when it
// started and still without any: none, not an error (its nodes column is
// NULL).
func TestNodeRunsOfAStartedRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		ada := newUser(t, db, "ada@x.io")
		ws := newWorkspace(t, db, "A", ada.ID)
		w := newStoredWorkflow(t, db, ws.ID, ada.ID, "runner")
		r := &workflow.Run{ID: db.ids.Next(), WorkflowID: w.ID, WorkspaceID: ws.ID, Mode: workflow.RunAsync, Status: workflow.RunRunning}
		mustNot(t, db.WorkflowRuns().CreateRun(ctx, r))
		recs, err := db.WorkflowRuns().ListNodeRuns(ctx, r.ID)
		if err != nil || len(recs) != 0 {
			t.Fatalf("ListNodeRuns of a run without records = %v, %v", recs, err)
		}
	})
}
