package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// BenchmarkSyncRun measures a synchronous run of chains of 2, 20 and 100
// text nodes through the workflow service on SQLite, storage included,
// without HTTP or identity: "direct" as runs go now (one INSERT when the
// run ends), "leased" as every run went before (run, lease, records in
// batches, end and release, and the run waiting for its records).
func BenchmarkSyncRun(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, Config{SQLitePath: filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	ada := &identity.User{Email: "ada@x.io", Name: "Ada"}
	if err := db.Users().CreateUser(ctx, ada); err != nil {
		b.Fatal(err)
	}
	ws := &identity.Workspace{Name: "A", Kind: identity.WorkspaceTeam, OwnerID: ada.ID}
	if err := db.Workspaces().CreateWorkspace(ctx, ws); err != nil {
		b.Fatal(err)
	}
	history := workflowapp.NewHistory(db.WorkflowRuns(), nil)
	defer history.Close()
	services := map[string]*workflowapp.Service{
		"direct": workflowapp.New(workflowapp.Deps{Store: db.Workflows(), Runs: db.WorkflowRuns(), Writer: db.WorkflowRuns(),
			Access: anyMember{}, Engine: wf.New(wf.Config{}), IDs: db.IDs()}),
		"leased": workflowapp.New(workflowapp.Deps{Store: db.Workflows(), Runs: db.WorkflowRuns(), History: history,
			States: db.WorkflowRunStates(), Access: anyMember{}, Engine: wf.New(wf.Config{History: history}), IDs: db.IDs()}),
	}
	caller := identity.Principal{UserID: ada.ID, Scopes: []string{identity.ScopeAll}}
	for _, n := range []int{2, 20, 100} {
		w := &workflow.Workflow{WorkspaceID: ws.ID, CreatorID: ada.ID, Name: fmt.Sprint("chain", n), Definition: chainDefinition(n)}
		if err := db.Workflows().CreateWorkflow(ctx, w); err != nil {
			b.Fatal(err)
		}
		if err := db.Workflows().PublishWorkflow(ctx, ws.ID, &workflow.Version{WorkflowID: w.ID, Definition: w.Definition, PublisherID: ada.ID}); err != nil {
			b.Fatal(err)
		}
		req := workflowapp.RunRequest{WorkflowID: w.ID, Mode: workflow.RunSync, Params: map[string]any{"q": "hi"}}
		for _, kind := range []string{"direct", "leased"} {
			b.Run(fmt.Sprintf("%s/%dnodes", kind, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := services[kind].Run(ctx, caller, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
