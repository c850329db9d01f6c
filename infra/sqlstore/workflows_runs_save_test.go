package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

func TestWorkflowRunSave(t *testing.T) { forEachBackend(t, testWorkflowRunSave) }

func testWorkflowRunSave(t *testing.T, db *DB) {
	ctx := context.Background()
	runs := db.WorkflowRuns()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	w := newStoredWorkflow(t, db, ws.ID, ada.ID, "runner")
	started := time.Now().Add(-time.Second).UTC().Truncate(time.Millisecond)
	newRun := func() *workflow.Run {
		return &workflow.Run{ID: db.ids.Next(), WorkflowID: w.ID, WorkspaceID: ws.ID, Version: 1, Mode: workflow.RunSync,
			Status: workflow.RunSucceeded, CallerID: ada.ID, UserID: "u1", ConnectorID: "1024", Input: `{"q":"hi"}`,
			Output: `{"out":"hi"}`, InputTokens: 4, OutputTokens: 2, CreatedAt: started}
	}

	t.Run("one row keeps every field", func(t *testing.T) {
		run := newRun()
		recs := []workflow.NodeRun{
			{RunID: run.ID, Seq: 1, NodeID: "start", Type: "start", Index: -1, Status: "success", Output: `{"q":"hi"}`, StartedAt: started, Attempts: 1},
			{RunID: run.ID, Seq: 2, NodeID: "t", Type: "text", Title: "Grüße \"quoted\" \\ <tag>\n\ttab", Parent: "loop/3", Index: 2,
				Status: "failed", Handled: true, Input: `{"x": "é\u0001"}`, Output: `not json {`, Error: "line1\nline2 \x00 end",
				Logs: "log ✓", StartedAt: started.Add(time.Millisecond), Duration: 1500 * time.Microsecond, InputTokens: 3,
				OutputTokens: 9, Attempts: 2},
			{RunID: run.ID, Seq: 3, NodeID: "end", Type: "end", Index: -1, Status: "success", Input: `"just a string"`, StartedAt: started},
		}
		mustNot(t, runs.SaveRun(ctx, run, recs))
		got, err := runs.GetRun(ctx, run.ID)
		mustNot(t, err)
		if diff := cmp.Diff(run, got); diff != "" || got.FinishedAt == nil || !got.CreatedAt.Equal(started) {
			t.Errorf("GetRun (-saved +got):\n%s", diff)
		}
		listed, err := runs.ListNodeRuns(ctx, run.ID)
		mustNot(t, err)
		if diff := cmp.Diff(recs, listed); diff != "" {
			t.Errorf("ListNodeRuns (-saved +got):\n%s", diff)
		}
		var inRows int64
		mustNot(t, db.gorm.Table("workflow_node_runs").Where("run_id = ?", run.ID).Count(&inRows).Error)
		if inRows != 0 {
			t.Errorf("a small run wrote %d rows to workflow_node_runs; want its records in its row", inRows)
		}
	})

	t.Run("invalid UTF-8 is stored replaced", func(t *testing.T) {
		run := newRun()
		recs := []workflow.NodeRun{{RunID: run.ID, Seq: 1, NodeID: "start", Index: -1, Input: "{\"x\":\"\xff\"}", Logs: "bad \xfe", StartedAt: started}}
		mustNot(t, runs.SaveRun(ctx, run, recs))
		listed, err := runs.ListNodeRuns(ctx, run.ID)
		mustNot(t, err)
		if len(listed) != 1 || listed[0].Input != "{\"x\":\"\uFFFD\"}" || listed[0].Logs != "bad \uFFFD" {
			t.Fatalf("records with invalid UTF-8 read back as %+v", listed)
		}
	})

	t.Run("too many or too large records go to rows", func(t *testing.T) {
		for _, shape := range []struct {
			name  string
			n     int
			bytes int
		}{{"many", inlineMaxNodes + 1, 10}, {"large", 40, 60 << 10}} {
			run := newRun()
			recs := make([]workflow.NodeRun, shape.n)
			for i := range recs {
				recs[i] = workflow.NodeRun{RunID: run.ID, Seq: int64(i + 1), NodeID: fmt.Sprint("n", i), Type: "text", Index: -1,
					Status: "success", Output: `{"o":"` + strings.Repeat("x", shape.bytes) + `"}`, StartedAt: started}
			}
			mustNot(t, runs.SaveRun(ctx, run, recs))
			listed, err := runs.ListNodeRuns(ctx, run.ID)
			mustNot(t, err)
			if len(listed) != shape.n || listed[shape.n-1].Seq != int64(shape.n) || listed[shape.n-1].Output != recs[shape.n-1].Output {
				t.Fatalf("%s: %d records read back, want %d in order", shape.name, len(listed), shape.n)
			}
		}
	})

	t.Run("refusals", func(t *testing.T) {
		run := newRun()
		mustNot(t, runs.SaveRun(ctx, run, nil))
		wantErr(t, runs.SaveRun(ctx, run, nil), errs.ErrConflict, "already exists")
		lost := newRun()
		lost.WorkflowID = 999
		wantErr(t, runs.SaveRun(ctx, lost, nil), errs.ErrNotFound, "workflow 999 not found")
		if recs, err := runs.ListNodeRuns(ctx, run.ID); err != nil || len(recs) != 0 {
			t.Fatalf("a run saved without records lists %v, %v", recs, err)
		}
	})
}

func TestNodeChunks(t *testing.T) {
	rows := make([]nodeRunRow, 450)
	rows[10].Output = strings.Repeat("x", nodeChunkBytes) // alone over the limit: a chunk of its own
	var sizes []int
	total := 0
	for _, c := range nodeChunks(rows) {
		sizes = append(sizes, len(c))
		total += len(c)
	}
	if total != 450 || !cmp.Equal(sizes, []int{10, 1, 200, 200, 39}) {
		t.Fatalf("chunks of %v rows (total %d)", sizes, total)
	}
}
