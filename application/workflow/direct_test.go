package workflow

import (
	"context"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// askDefinition asks a question before it ends.
const askDefinition = `{"nodes":[{"id":"start","type":"start"},
	{"id":"ask","type":"question","config":{"question":"Name?"}},
	{"id":"end","type":"end","inputs":{"name":{"ref":{"node":"ask","path":"answer"}}}}],
	"edges":[{"from":"start","to":"ask"},{"from":"ask","to":"end"}]}`

// TestDirectRunsAreStoredOnceWhenTheyEnd runs workflows of each kind and
// counts how they were stored: a synchronous, streamed, test or tool run
// of a workflow that cannot ask is stored once, when it ends, with its
// node records; a run that can ask, or whose mode shows its id while it
// runs, is stored when it starts.
func TestDirectRunsAreStoredOnceWhenTheyEnd(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	echo, _ := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "echo", Definition: echoDefinition("!")})
	ask, _ := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "ask", Definition: []byte(askDefinition)})
	for _, w := range []*workflow.Workflow{echo, ask} {
		if _, err := f.svc.Publish(ctx, f.ada, w.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		w      *workflow.Workflow
		mode   workflow.RunMode
		direct bool
	}{ // (workflows that may wait: TestDirectRunFailureIsStored)
		{"sync", echo, workflow.RunSync, true},
		{"stream", echo, workflow.RunStream, true},
		{"test", echo, workflow.RunTest, true},
		{"tool", echo, RunModeTool, true},
		{"chatflow", echo, "chatflow", false},
		{"a workflow that asks", ask, workflow.RunSync, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			saved, created := f.store.saved, f.store.created
			pr, err := f.svc.Prepare(ctx, f.bo, RunRequest{WorkflowID: tc.w.ID, Mode: tc.mode, Params: map[string]any{"q": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			out, err := pr.Execute(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.store.saved - saved; tc.direct != (got == 1) || f.store.created-created != 1-got {
				t.Fatalf("saved in one write %d, created at the start %d; want direct %v", got, f.store.created-created, tc.direct)
			}
			run, nodes, err := f.svc.RunHistory(ctx, f.ada, tc.w.ID, out.Run.ID)
			if err != nil || run.Mode != tc.mode || run.Status == workflow.RunRunning {
				t.Fatalf("history: %+v, %v", run, err)
			}
			if tc.direct && (run.Status != workflow.RunSucceeded || run.Output != `{"out":"hi!"}` || len(nodes) != 3 ||
				nodes[0].Seq != 1 || nodes[2].NodeID != "end" || nodes[1].Input != `{"q":"hi"}`) {
				t.Fatalf("a direct run reads back as %+v with nodes %+v", run, nodes)
			}
		})
	}
}

// TestDirectRunFailureIsStored fails a direct run's code node: the run,
// stored when it started (code may run long) and naming this process, is
// stored failed, with the record of the failed node.
func TestDirectRunFailureIsStored(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	def := `{"nodes":[{"id":"start","type":"start"},
	{"id":"boom","type":"code","config":{"code":"function main() { throw new Error('kaput') }"},"outputs":[{"name":"x","type":"string"}]},
	{"id":"end","type":"end"}],"edges":[{"from":"start","to":"boom"},{"from":"boom","to":"end"}]}`
	w, _ := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "boom", Definition: []byte(def)})
	if _, err := f.svc.Publish(ctx, f.ada, w.ID, ""); err != nil {
		t.Fatal(err)
	}
	out, _ := f.svc.Run(ctx, f.ada, RunRequest{WorkflowID: w.ID, Mode: workflow.RunSync})
	run, nodes, err := f.svc.RunHistory(ctx, f.ada, w.ID, out.Run.ID)
	if err != nil || f.store.created != 1 || run.Status != workflow.RunFailed || len(nodes) != 2 || nodes[1].Status != "failed" {
		t.Fatalf("a failed direct run reads back as %+v with nodes %+v (%v)", run, nodes, err)
	}
	if f.store.instances[run.ID] != f.svc.d.Owner {
		t.Fatalf("the run names instance %q, want this process (%q)", f.store.instances[run.ID], f.svc.d.Owner)
	}
}

// TestReapFailsTheDirectRunsOfStoppedProcesses stores two running direct
// runs, one of a process that beat a minute ago and one of a process that
// beats: Reap fails the first with the reason and leaves the other.
func TestReapFailsTheDirectRunsOfStoppedProcesses(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	w, _ := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "echo", Definition: echoDefinition("")})
	dead := &workflow.Run{ID: 1, WorkflowID: w.ID, WorkspaceID: 1, Status: workflow.RunRunning}
	alive := &workflow.Run{ID: 2, WorkflowID: w.ID, WorkspaceID: 1, Status: workflow.RunRunning}
	f.store.StartRun(ctx, dead, "dead")
	f.store.StartRun(ctx, alive, "alive")
	f.store.beats["dead"] = time.Now().Add(-time.Minute)
	f.store.Beat(ctx, "alive")
	if err := f.svc.Reap(ctx); err != nil {
		t.Fatal(err)
	}
	d, _ := f.store.GetRun(ctx, 1)
	a, _ := f.store.GetRun(ctx, 2)
	if d.Status != workflow.RunFailed || d.Error != OrphanedRunMessage || a.Status != workflow.RunRunning {
		t.Fatalf("after Reap the dead process's run is %s (%q), the live one's %s", d.Status, d.Error, a.Status)
	}
}

// TestHistoryWritesWithoutFlush records a node and waits for the writer
// to store it on its own: it wakes on the record, not on a timer or a
// flush.
func TestHistoryWritesWithoutFlush(t *testing.T) {
	store := newMemStore()
	h := NewHistory(store, nil)
	defer h.Close()
	h.NodeFinished(context.Background(), wf.NodeRecord{RunID: 42, NodeID: "a", Status: wf.NodeSucceeded})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if recs, _ := store.ListNodeRuns(context.Background(), 42); len(recs) == 1 && recs[0].Seq == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the record was not written within 10s without a flush")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestHistoryFlushBatches queues more records than a batch holds from
// several runs, flushes, and reads every record back, numbered per run.
func TestHistoryFlushBatches(t *testing.T) {
	store := newMemStore()
	h := NewHistory(store, nil)
	defer h.Close()
	ctx := context.Background()
	for i := range 3 * historyBatch {
		h.NodeFinished(ctx, wf.NodeRecord{RunID: int64(1 + i%3), NodeID: "n", Status: wf.NodeSucceeded})
	}
	if err := h.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for run := int64(1); run <= 3; run++ {
		recs, _ := store.ListNodeRuns(ctx, run)
		if len(recs) != historyBatch || recs[0].Seq != 1 || recs[len(recs)-1].Seq != historyBatch {
			t.Fatalf("run %d has %d records after the flush, want %d numbered 1..%d", run, len(recs), historyBatch, historyBatch)
		}
	}
}
