package workflow

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	"github.com/pergola-ai/pergola/infra/memory"
	wf "github.com/pergola-ai/pergola/workflow"
)

// countingStore counts the reads of workflows.
type countingStore struct {
	*memStore
	gets atomic.Int64
}

func (c *countingStore) GetWorkflow(ctx context.Context, id int64) (*workflow.Workflow, error) {
	c.gets.Add(1)
	return c.memStore.GetWorkflow(ctx, id)
}

// cachedProcess is the workflow service of one process with its own
// cache of workflow heads, over the shared store.
func cachedProcess(t *testing.T, store *countingStore, bus *memory.InvalidationBus) *Service {
	t.Helper()
	hub := invalidation.NewHub(bus, invalidation.Options{TTL: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	cached := NewCachedStore(store, hub, 10)
	hist := NewHistory(store, nil)
	t.Cleanup(hist.Close)
	eng := wf.New(wf.Config{Workflows: NewLoader(cached), History: hist})
	access := memAccess{1: {1: identity.RoleOwner, 2: identity.RoleMember}, 2: {3: identity.RoleOwner}}
	return New(Deps{Store: cached, Runs: store, Writer: store, Access: access, Bots: memBots{7: 1, 8: 2}, Engine: eng,
		History: hist, IDs: store})
}

// TestRunsOfPublishedVersionsReadNoWorkflowWhenWarm runs a published
// workflow on a process whose cache is warm (no read of the workflow),
// and checks that a publish, a delete and the access rules on another
// process take effect on it.
func TestRunsOfPublishedVersionsReadNoWorkflowWhenWarm(t *testing.T) {
	ctx := context.Background()
	store := &countingStore{memStore: newMemStore()}
	bus := memory.NewInvalidationBus()
	a, b := cachedProcess(t, store, bus), cachedProcess(t, store, bus)
	for bus.Listeners() < 2 {
		time.Sleep(time.Millisecond)
	}
	all := []string{identity.ScopeAll}
	ada, bo, cy := identity.Principal{UserID: 1, Scopes: all}, identity.Principal{UserID: 2, Scopes: all}, identity.Principal{UserID: 3, Scopes: all}
	w, err := a.Create(ctx, ada, CreateInput{WorkspaceID: 1, Name: "echo", Definition: echoDefinition(" v1")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Publish(ctx, ada, w.ID, "")
	noErr(t, err)
	run := func(p identity.Principal) (string, error) {
		out, err := b.Run(ctx, p, RunRequest{WorkflowID: w.ID, Params: map[string]any{"q": "hi"}, Mode: workflow.RunSync})
		if err != nil {
			return "", err
		}
		s, _ := out.Result.Output["out"].(string)
		return s, nil
	}
	if out, err := run(bo); err != nil || out != "hi v1" {
		t.Fatalf("first run = %q, %v", out, err)
	}
	before := store.gets.Load()
	if out, err := run(bo); err != nil || out != "hi v1" {
		t.Fatalf("warm run = %q, %v", out, err)
	}
	if n := store.gets.Load() - before; n != 0 {
		t.Fatalf("a warm run of the published version read the workflow %d times, want 0", n)
	}
	_, err = run(cy)
	wantErr(t, err, errs.ErrNotFound, "not found") // cached, and still not reachable by another workspace

	_, err = a.Update(ctx, ada, w.ID, UpdateInput{Definition: echoDefinition(" v2")})
	noErr(t, err)
	if out, err := run(bo); err != nil || out != "hi v1" {
		t.Fatalf("after a draft change the run answers %q, %v; want the published hi v1", out, err)
	}
	_, err = a.Publish(ctx, ada, w.ID, "")
	noErr(t, err)
	if out, err := run(bo); err != nil || out != "hi v2" {
		t.Fatalf("after a publish on the other process the run answers %q, %v; want hi v2", out, err)
	}

	before = store.gets.Load()
	test, err := b.TestRun(ctx, ada, RunRequest{WorkflowID: w.ID, Params: map[string]any{"q": "hi"}})
	if err != nil || test.Result.Output["out"] != "hi v2" || store.gets.Load() == before {
		t.Fatalf("a test run of the draft = %v (%v), reading the workflow %d times; want it read", test, err, store.gets.Load()-before)
	}

	noErr(t, a.Delete(ctx, ada, w.ID))
	_, err = run(bo)
	wantErr(t, err, errs.ErrNotFound, "not found")
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
