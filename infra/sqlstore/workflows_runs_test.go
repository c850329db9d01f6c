package sqlstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

func TestWorkflowRunStore(t *testing.T) { forEachBackend(t, testWorkflowRunStore) }

func testWorkflowRunStore(t *testing.T, db *DB) {
	ctx := context.Background()
	runs := db.WorkflowRuns()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	w := newStoredWorkflow(t, db, ws.ID, ada.ID, "runner")

	run := &workflow.Run{ID: db.ids.Next(), WorkflowID: w.ID, WorkspaceID: ws.ID, Version: 2, Mode: workflow.RunStream,
		Status: workflow.RunRunning, CallerID: ada.ID, BotID: 5, UserID: strings.Repeat("u", 200), ConnectorID: "1024",
		Input: `{"q":"hi"}`}
	mustNot(t, runs.CreateRun(ctx, run))
	got, err := runs.GetRun(ctx, run.ID)
	mustNot(t, err)
	if diff := cmp.Diff(run, got); diff != "" {
		t.Errorf("GetRun (-created +got):\n%s", diff)
	}
	wantErr(t, runs.CreateRun(ctx, &workflow.Run{ID: db.ids.Next(), WorkflowID: 999, WorkspaceID: ws.ID}), errs.ErrNotFound, "workflow 999 not found")
	wantErr(t, runs.CreateRun(ctx, &workflow.Run{ID: run.ID, WorkflowID: w.ID, WorkspaceID: ws.ID}), errs.ErrConflict, "already exists")

	big := strings.Repeat("y", 200<<10)
	recs := []workflow.NodeRun{
		{RunID: run.ID, Seq: 2, NodeID: "llm", Type: "llm", Title: "Ask", Index: -1, Status: "success", Input: `{"q":"hi"}`,
			Output: `{"output":"` + big + `"}`, StartedAt: time.Now().UTC().Truncate(time.Millisecond), Duration: 1500 * time.Microsecond,
			InputTokens: 10, OutputTokens: 3, Attempts: 1},
		{RunID: run.ID, Seq: 1, NodeID: "start", Type: "start", Index: -1, Status: "success", StartedAt: time.Now().UTC().Truncate(time.Millisecond)},
		{RunID: run.ID, Seq: 3, NodeID: "inner", Type: "code", Parent: "loop1", Index: 4, Status: "failed", Handled: true,
			Error: "boom", Logs: "hello", StartedAt: time.Now().UTC().Truncate(time.Millisecond)},
	}
	mustNot(t, runs.AddNodeRuns(ctx, recs))
	mustNot(t, runs.AddNodeRuns(ctx, nil))
	listed, err := runs.ListNodeRuns(ctx, run.ID)
	mustNot(t, err)
	want := []workflow.NodeRun{recs[1], recs[0], recs[2]}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("ListNodeRuns (-want +got):\n%s", diff)
	}
	wantErr(t, runs.AddNodeRuns(ctx, []workflow.NodeRun{{RunID: 4242, Seq: 1, StartedAt: time.Now()}}), errs.ErrNotFound, "run 4242 not found")

	run.Status, run.Output, run.Error, run.InputTokens, run.OutputTokens = workflow.RunSucceeded, `{"a":1}`, "", 10, 3
	mustNot(t, runs.FinishRun(ctx, run))
	done, _ := runs.GetRun(ctx, run.ID)
	if done.Status != workflow.RunSucceeded || done.Output != `{"a":1}` || done.FinishedAt == nil || done.OutputTokens != 3 {
		t.Fatalf("finished run = %+v", done)
	}
	wantErr(t, runs.FinishRun(ctx, &workflow.Run{ID: 4242}), errs.ErrNotFound, "run 4242 not found")
	_, err = runs.GetRun(ctx, 4242)
	wantErr(t, err, errs.ErrNotFound, "run 4242 not found")
}
