package sqlstore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

func TestWorkflowStore(t *testing.T) { forEachBackend(t, testWorkflowStore) }

// newStoredWorkflow stores a workflow named name in workspace ws.
func newStoredWorkflow(t *testing.T, db *DB, ws, creator int64, name string) *workflow.Workflow {
	t.Helper()
	w := &workflow.Workflow{WorkspaceID: ws, CreatorID: creator, Name: name, Description: "does " + name,
		Definition: []byte(`{"nodes":[],"edges":[]}`)}
	mustNot(t, db.Workflows().CreateWorkflow(context.Background(), w))
	return w
}

func testWorkflowStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Workflows()
	ada := newUser(t, db, "ada@x.io")
	wsA := newWorkspace(t, db, "A", ada.ID)
	wsB := newWorkspace(t, db, "B", ada.ID)

	t.Run("create and get keep every field", func(t *testing.T) {
		w := newStoredWorkflow(t, db, wsA.ID, ada.ID, "greet")
		if w.ID == 0 || w.DraftRevision != 1 || w.IsPublished() || w.CreatedAt.IsZero() {
			t.Fatalf("created = %+v", w)
		}
		got, err := store.GetWorkflow(ctx, w.ID)
		mustNot(t, err)
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("GetWorkflow (-created +got):\n%s", diff)
		}
		_, err = store.GetWorkflow(ctx, 424242)
		wantErr(t, err, errs.ErrNotFound, "workflow 424242 not found")
		err = store.CreateWorkflow(ctx, &workflow.Workflow{WorkspaceID: 777, CreatorID: ada.ID, Name: "x"})
		wantErr(t, err, errs.ErrNotFound, "workspace 777 not found")
	})

	t.Run("a large definition", func(t *testing.T) {
		big := `{"nodes":[],"edges":[],"pad":"` + strings.Repeat("x", 300<<10) + `"}`
		w := &workflow.Workflow{WorkspaceID: wsA.ID, CreatorID: ada.ID, Name: "big", Definition: []byte(big)}
		mustNot(t, store.CreateWorkflow(ctx, w))
		got, err := store.GetWorkflow(ctx, w.ID)
		mustNot(t, err)
		if string(got.Definition) != big {
			t.Fatalf("definition of %d bytes came back as %d", len(big), len(got.Definition))
		}
	})

	t.Run("update", func(t *testing.T) { testWorkflowUpdate(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("list", func(t *testing.T) { testWorkflowList(t, db, ada.ID) })
	t.Run("publish", func(t *testing.T) { testWorkflowPublish(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("delete", func(t *testing.T) { testWorkflowDelete(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("deleting the workspace deletes its workflows", func(t *testing.T) {
		ws := newWorkspace(t, db, "Doomed", ada.ID)
		w := newStoredWorkflow(t, db, ws.ID, ada.ID, "doomed")
		mustNot(t, db.Workspaces().DeleteWorkspace(ctx, ws.ID))
		_, err := store.GetWorkflow(ctx, w.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})
}

func testWorkflowUpdate(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Workflows()
	w := newStoredWorkflow(t, db, ws, creator, "before")
	db.now = func() time.Time { return time.Now().Add(time.Hour) }
	defer func() { db.now = time.Now }()
	got, err := store.UpdateWorkflow(ctx, ws, w.ID, func(x *workflow.Workflow) error {
		x.Name, x.Definition = "after", []byte(`{"nodes":[{"id":"a"}],"edges":[]}`)
		x.WorkspaceID, x.PublishedVersion, x.CreatorID = otherWS, 9, 99 // ignored
		return nil
	})
	mustNot(t, err)
	if got.Name != "after" || got.DraftRevision != 2 || got.WorkspaceID != ws || got.PublishedVersion != 0 ||
		got.CreatorID != creator || !got.UpdatedAt.After(w.UpdatedAt) || !strings.Contains(string(got.Definition), `"a"`) {
		t.Fatalf("updated = %+v", got)
	}
	stored, _ := store.GetWorkflow(ctx, w.ID)
	if diff := cmp.Diff(got, stored); diff != "" {
		t.Errorf("stored (-answer +stored):\n%s", diff)
	}
	_, err = store.UpdateWorkflow(ctx, ws, w.ID, func(x *workflow.Workflow) error { x.Name = "lost"; return errFromFn })
	if err != errFromFn {
		t.Fatalf("error = %v, want fn's own", err)
	}
	_, err = store.UpdateWorkflow(ctx, otherWS, w.ID, func(*workflow.Workflow) error { return nil })
	wantErr(t, err, errs.ErrNotFound, "not found")
	again, _ := store.GetWorkflow(ctx, w.ID)
	if again.Name != "after" || again.DraftRevision != 2 {
		t.Fatalf("a refused update changed the workflow: %+v", again)
	}
}

func testWorkflowList(t *testing.T, db *DB, owner int64) {
	ctx := context.Background()
	store := db.Workflows()
	ws := newWorkspace(t, db, "Listed", owner)
	var ids []int64
	for _, name := range []string{"one", "two", "three"} {
		ids = append(ids, newStoredWorkflow(t, db, ws.ID, owner, name).ID)
	}
	mustNot(t, store.PublishWorkflow(ctx, ws.ID, &workflow.Version{WorkflowID: ids[0], Name: "one", Definition: []byte("{}")}))
	page1, total, err := store.ListWorkflows(ctx, ws.ID, workflow.ListFilter{}, identity.Page{Number: 1, Size: 2})
	mustNot(t, err)
	if total != 3 || len(page1) != 2 || page1[0].ID != ids[2] || page1[1].ID != ids[1] || page1[0].Definition != nil {
		t.Fatalf("page 1 = %d of %d: %+v", len(page1), total, page1)
	}
	page2, _, _ := store.ListWorkflows(ctx, ws.ID, workflow.ListFilter{}, identity.Page{Number: 2, Size: 2})
	if len(page2) != 1 || page2[0].ID != ids[0] {
		t.Fatalf("page 2 = %+v", page2)
	}
	published, total, _ := store.ListWorkflows(ctx, ws.ID, workflow.ListFilter{PublishedOnly: true}, identity.Page{})
	if total != 1 || published[0].ID != ids[0] || published[0].PublishedVersion != 1 {
		t.Fatalf("published = %+v", published)
	}
}

func testWorkflowPublish(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Workflows()
	w := newStoredWorkflow(t, db, ws, creator, "pub")
	v := &workflow.Version{WorkflowID: w.ID, Name: "pub", Description: "v1", Definition: []byte(`{"v":1}`), PublisherID: creator}
	mustNot(t, store.PublishWorkflow(ctx, ws, v))
	if v.Number != 1 || v.CreatedAt.IsZero() {
		t.Fatalf("version = %+v", v)
	}
	got, err := store.GetVersion(ctx, w.ID, 1)
	mustNot(t, err)
	if diff := cmp.Diff(v, got); diff != "" {
		t.Errorf("GetVersion (-published +got):\n%s", diff)
	}
	err = store.PublishWorkflow(ctx, otherWS, &workflow.Version{WorkflowID: w.ID, Definition: []byte("{}")})
	wantErr(t, err, errs.ErrNotFound, "not found")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := store.PublishWorkflow(ctx, ws, &workflow.Version{WorkflowID: w.ID, Definition: []byte("{}")}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := store.ListVersions(ctx, w.ID)
	mustNot(t, err)
	if len(list) != 5 || list[0].Number != 5 || list[4].Number != 1 || list[0].Definition != nil {
		t.Fatalf("versions = %+v", list)
	}
	after, _ := store.GetWorkflow(ctx, w.ID)
	if after.PublishedVersion != 5 || after.PublishedAt == nil || after.DraftRevision != 1 {
		t.Fatalf("workflow after publishing = %+v", after)
	}
	_, err = store.GetVersion(ctx, w.ID, 9)
	wantErr(t, err, errs.ErrNotFound, "version 9 of workflow")
}

func testWorkflowDelete(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store, runs := db.Workflows(), db.WorkflowRuns()
	w := newStoredWorkflow(t, db, ws, creator, "gone")
	mustNot(t, store.PublishWorkflow(ctx, ws, &workflow.Version{WorkflowID: w.ID, Definition: []byte("{}")}))
	run := &workflow.Run{ID: db.ids.Next(), WorkflowID: w.ID, WorkspaceID: ws, Mode: workflow.RunSync, Status: workflow.RunRunning}
	mustNot(t, runs.CreateRun(ctx, run))
	mustNot(t, runs.AddNodeRuns(ctx, []workflow.NodeRun{{RunID: run.ID, Seq: 1, NodeID: "start", StartedAt: time.Now()}}))

	wantErr(t, store.DeleteWorkflow(ctx, otherWS, w.ID), errs.ErrNotFound, "not found")
	if _, err := runs.GetRun(ctx, run.ID); err != nil {
		t.Fatalf("a refused delete removed the run: %v", err)
	}
	mustNot(t, store.DeleteWorkflow(ctx, ws, w.ID))
	_, err := store.GetWorkflow(ctx, w.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
	_, err = store.GetVersion(ctx, w.ID, 1)
	wantErr(t, err, errs.ErrNotFound, "not found")
	_, err = runs.GetRun(ctx, run.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
	if recs, _ := runs.ListNodeRuns(ctx, run.ID); len(recs) != 0 {
		t.Fatalf("node records left: %+v", recs)
	}
	wantErr(t, store.DeleteWorkflow(ctx, ws, w.ID), errs.ErrNotFound, "not found")
}
