package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// anyMember lets every caller in, so that only the workflow's own
// statements are counted.
type anyMember struct{}

func (anyMember) Authorize(_ context.Context, p identity.Principal, ws int64, min identity.Role) (*identity.Member, error) {
	return &identity.Member{WorkspaceID: ws, UserID: p.UserID, Role: identity.RoleOwner}, nil
}

// chainDefinition is start, n-2 text nodes in a line, and end.
func chainDefinition(n int) []byte {
	nodes := []string{`{"id":"start","type":"start","outputs":[{"name":"q","type":"string","required":true}]}`}
	var edges []string
	prev, field := "start", "q"
	for i := 1; i <= n-2; i++ {
		id := fmt.Sprint("t", i)
		nodes = append(nodes, fmt.Sprintf(`{"id":%q,"type":"text","config":{"op":"template","template":"{{x}}"},`+
			`"inputs":{"x":{"ref":{"node":%q,"path":%q}}}}`, id, prev, field))
		edges = append(edges, fmt.Sprintf(`{"from":%q,"to":%q}`, prev, id))
		prev, field = id, "output"
	}
	nodes = append(nodes, fmt.Sprintf(`{"id":"end","type":"end","inputs":{"out":{"ref":{"node":%q,"path":%q}}}}`, prev, field))
	edges = append(edges, fmt.Sprintf(`{"from":%q,"to":"end"}`, prev))
	return []byte(`{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + strings.Join(edges, ",") + `]}`)
}

// TestWorkflowRunStatements counts the statements of a warm synchronous
// run of a published 2-node and a 100-node workflow through the workflow
// service on this store: one read of the workflow and one write, the run
// with its node records; the history reads them back at once. A run
// stored when it starts (a chatflow's), for comparison, still writes its
// run, its lease, its records, its end and its release apart.
func TestWorkflowRunStatements(t *testing.T) { forEachBackend(t, testWorkflowRunStatements) }

func testWorkflowRunStatements(t *testing.T, db *DB) {
	ctx := context.Background()
	counter, err := db.CountStatements()
	mustNot(t, err)
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	history := workflowapp.NewHistory(db.WorkflowRuns(), nil)
	t.Cleanup(history.Close)
	svc := workflowapp.New(workflowapp.Deps{Store: db.Workflows(), Runs: db.WorkflowRuns(), Writer: db.WorkflowRuns(),
		Access: anyMember{}, Engine: wf.New(wf.Config{History: history}), History: history, IDs: db.IDs(),
		States: db.WorkflowRunStates()})
	caller := identity.Principal{UserID: ada.ID, Scopes: []string{identity.ScopeAll}}
	for _, n := range []int{2, 100} {
		t.Run(fmt.Sprint(n, " nodes"), func(t *testing.T) {
			w := &workflow.Workflow{WorkspaceID: ws.ID, CreatorID: ada.ID, Name: fmt.Sprint("chain", n), Definition: chainDefinition(n)}
			mustNot(t, db.Workflows().CreateWorkflow(ctx, w))
			mustNot(t, db.Workflows().PublishWorkflow(ctx, ws.ID, &workflow.Version{WorkflowID: w.ID, Definition: w.Definition, PublisherID: ada.ID}))
			req := workflowapp.RunRequest{WorkflowID: w.ID, Mode: workflow.RunSync, Params: map[string]any{"q": "hi"}}
			if _, err := svc.Run(ctx, caller, req); err != nil { // compiles and caches the version
				t.Fatal(err)
			}
			counter.Reset()
			out, err := svc.Run(ctx, caller, req)
			mustNot(t, err)
			all, writes := counter.Statements(), counter.Writes()
			if len(all) != 2 || len(writes) != 1 || !strings.Contains(writes[0], "workflow_runs") {
				t.Fatalf("a warm %d-node sync run ran %d statements, %d writes; want 2 and 1 (the run with its records):\n%s",
					n, len(all), len(writes), strings.Join(all, "\n"))
			}
			_, nodes, err := svc.RunHistory(ctx, caller, w.ID, out.Run.ID)
			mustNot(t, err)
			if len(nodes) != n || nodes[n-1].NodeID != "end" || nodes[n-1].Input != `{"out":"hi"}` {
				t.Fatalf("the history read right after the run has %d records (last %+v), want %d", len(nodes), nodes[len(nodes)-1], n)
			}
			t.Logf("sync %d nodes: %d statements: %s", n, len(all), strings.Join(all, " | "))
		})
	}
	t.Run("a run that may wait", func(t *testing.T) { countWaiting(t, db, svc, counter, caller, ws.ID, ada.ID) })
	t.Run("leased run for comparison", func(t *testing.T) { countLeased(t, db, svc, counter, caller, ws.ID, ada.ID) })
}

// codeDefinition runs one code node.
const codeDefinition = `{"nodes":[{"id":"start","type":"start","outputs":[{"name":"q","type":"string","required":true}]},
	{"id":"c","type":"code","config":{"code":"function main({ params }) { return { a: params.q }; }"},
	 "inputs":{"q":{"ref":{"node":"start","path":"q"}}},"outputs":[{"name":"a","type":"string"}]},
	{"id":"end","type":"end","inputs":{"out":{"ref":{"node":"c","path":"a"}}}}],
	"edges":[{"from":"start","to":"c"},{"from":"c","to":"end"}]}`

// countWaiting runs a workflow with a code node synchronously: stored
// when it starts, its records written as its nodes end, then its end; no
// lease is taken, renewed or released.
func countWaiting(t *testing.T, db *DB, svc *workflowapp.Service, counter *StatementCounter, caller identity.Principal, ws, user int64) {
	ctx := context.Background()
	w := &workflow.Workflow{WorkspaceID: ws, CreatorID: user, Name: "code", Definition: []byte(codeDefinition)}
	mustNot(t, db.Workflows().CreateWorkflow(ctx, w))
	mustNot(t, db.Workflows().PublishWorkflow(ctx, ws, &workflow.Version{WorkflowID: w.ID, Definition: w.Definition, PublisherID: user}))
	req := workflowapp.RunRequest{WorkflowID: w.ID, Mode: workflow.RunSync, Params: map[string]any{"q": "hi"}}
	if _, err := svc.Run(ctx, caller, req); err != nil {
		t.Fatal(err)
	}
	counter.Reset()
	if _, err := svc.Run(ctx, caller, req); err != nil {
		t.Fatal(err)
	}
	writes := counter.Writes()
	joined := strings.Join(writes, "\n")
	if len(writes) < 3 || len(writes) > 5 || strings.Contains(joined, "workflow_checkpoints") ||
		!strings.HasPrefix(writes[0], "INSERT INTO `workflow_runs`") || !strings.HasPrefix(writes[len(writes)-1], "UPDATE `workflow_runs`") {
		t.Fatalf("a sync run that may wait wrote:\n%s\nwant its start, 1 to 3 batches of records and its end, no lease", joined)
	}
	t.Logf("sync run with a code node: %d statements, %d writes", len(counter.Statements()), len(writes))
}

// countLeased runs a chatflow-mode run, stored and leased when it starts
// as every sync run was before direct runs, and logs its statements.
func countLeased(t *testing.T, db *DB, svc *workflowapp.Service, counter *StatementCounter, caller identity.Principal, ws, user int64) {
	ctx := context.Background()
	w := &workflow.Workflow{WorkspaceID: ws, CreatorID: user, Name: "chain_leased", Definition: chainDefinition(2)}
	mustNot(t, db.Workflows().CreateWorkflow(ctx, w))
	mustNot(t, db.Workflows().PublishWorkflow(ctx, ws, &workflow.Version{WorkflowID: w.ID, Definition: w.Definition, PublisherID: user}))
	pr, err := svc.Prepare(ctx, caller, workflowapp.RunRequest{WorkflowID: w.ID, Mode: "chatflow", Params: map[string]any{"q": "hi"}})
	mustNot(t, err)
	_, err = pr.Execute(ctx, nil) // warm
	mustNot(t, err)
	counter.Reset()
	pr, err = svc.Prepare(ctx, caller, workflowapp.RunRequest{WorkflowID: w.ID, Mode: "chatflow", Params: map[string]any{"q": "hi"}})
	mustNot(t, err)
	_, err = pr.Execute(ctx, nil)
	mustNot(t, err)
	b, _ := json.Marshal(counter.Statements())
	t.Logf("a stored-at-start (leased) 2-node run: %d statements, %d writes: %s", len(counter.Statements()), len(counter.Writes()), b)
	if len(counter.Writes()) < 4 {
		t.Fatalf("a leased run wrote %d statements; it should still store its run, lease, records and end apart", len(counter.Writes()))
	}
}
