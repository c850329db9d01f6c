package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// chainWorkflow is start, n-2 text nodes in a line and end: a workflow
// that runs in the engine alone.
func chainWorkflow(n int) json.RawMessage {
	nodes := []string{`{"id":"start","type":"start","outputs":[{"name":"name","type":"string","required":true}]}`}
	var edges []string
	prev, field := "start", "name"
	for i := 1; i <= n-2; i++ {
		id := fmt.Sprint("t", i)
		nodes = append(nodes, fmt.Sprintf(`{"id":%q,"type":"text","config":{"op":"template","template":"{{x}}"},`+
			`"inputs":{"x":{"ref":{"node":%q,"path":%q}}}}`, id, prev, field))
		edges = append(edges, fmt.Sprintf(`{"from":%q,"to":%q}`, prev, id))
		prev, field = id, "output"
	}
	nodes = append(nodes, fmt.Sprintf(`{"id":"end","type":"end","inputs":{"out":{"ref":{"node":%q,"path":%q}}}}`, prev, field))
	edges = append(edges, fmt.Sprintf(`{"from":%q,"to":"end"}`, prev))
	return json.RawMessage(`{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + strings.Join(edges, ",") + `]}`)
}

// publishDefinition creates and publishes a workflow; it returns its id.
func publishDefinition(t *testing.T, s *testServer, name string, def json.RawMessage) string {
	t.Helper()
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	id := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": name,
		"definition": def}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

// checkComplete reads a run's history and checks it succeeded with a
// record for each of n nodes, the last one the end node's.
func checkComplete(t *testing.T, s *testServer, wfID, execID string, n int) {
	t.Helper()
	h := s.runHistory(t, wfID, execID)
	nodes := items(t, h, "nodes")
	if str(h, "execute_status") != "Success" || len(nodes) != n || str(nodes[n-1], "node_id") != "end" ||
		!strings.Contains(str(h, "output"), "Ada") {
		t.Fatalf("the history read right after run %s: %s with %d nodes (output %q); want Success with %d",
			execID, str(h, "execute_status"), len(nodes), str(h, "output"), n)
	}
}

// TestWorkflowDirectRunsThroughTheAPI runs a 100-node workflow of text
// nodes, which holds no lease and is stored once when it ends, through
// /v1/workflow/run, /v1/workflow/stream_run and the console's test run,
// and reads each run's history at once: complete, every node there. A
// direct run cannot be cancelled after its end either. On SQLite and on
// MariaDB with Redis.
func TestWorkflowDirectRunsThroughTheAPI(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			id := publishDefinition(t, s, "chain", chainWorkflow(100))
			params := map[string]any{"name": "Ada"}
			for range 3 {
				run := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": params}).must(t, 200)
				if run.raw["data"] != `{"out":"Ada"}` {
					t.Fatalf("a run answered %v", run.raw)
				}
				checkComplete(t, s, id, str(run.raw, "execute_id"), 100)
			}
			events := s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": params})
			done := events[len(events)-1]
			if done.name != "Done" || str(done.data, "execute_id") == "" {
				t.Fatalf("the stream ended with %s %v", done.name, done.data)
			}
			checkComplete(t, s, id, str(done.data, "execute_id"), 100)
			test := s.call(t, "POST", "/api/workflows/"+id+"/test_run", bootstrapToken, map[string]any{"parameters": params}).must(t, 200)
			checkComplete(t, s, id, str(test.data, "execute_id"), 100)
			s.call(t, "POST", "/api/workflows/"+id+"/runs/"+str(test.data, "execute_id")+"/cancel", bootstrapToken, nil).
				fails(t, 409, 4300, "has ended")
		})
	}
}

// TestWorkflowSyncRunsKilledAfterTheirAnswer runs the pergola binary on
// SQLite, answers synchronous runs of a workflow of text nodes and of one
// with a code node, kills the process with SIGKILL right after the last
// answer and starts it again: every answered run reads back complete, and
// no run is left running.
func TestWorkflowSyncRunsKilledAfterTheirAnswer(t *testing.T) {
	bin := buildPergola(t)
	env := map[string]string{"PERGOLA_DATA_DIR": t.TempDir(), "PERGOLA_WORKFLOW_LEASE": "1s"}
	p1 := startProcess(t, bin, env)
	forgetConnections()
	chain := publishDefinition(t, p1.testServer, "chain", chainWorkflow(20))
	code := publishDefinition(t, p1.testServer, "code", json.RawMessage(`{"nodes":[
		{"id":"start","type":"start","outputs":[{"name":"name","type":"string","required":true}]},
		{"id":"c","type":"code","config":{"code":"function main({ params }) { return { a: params.n }; }"},
		 "inputs":{"n":{"ref":{"node":"start","path":"name"}}},"outputs":[{"name":"a","type":"string"}]},
		{"id":"end","type":"end","inputs":{"out":{"ref":{"node":"c","path":"a"}}}}],
		"edges":[{"from":"start","to":"c"},{"from":"c","to":"end"}]}`))
	answered := map[string][]string{}
	for i := range 10 {
		wf := chain
		if i%2 == 1 {
			wf = code
		}
		run := p1.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": wf,
			"parameters": map[string]any{"name": "Ada"}}).must(t, 200)
		answered[wf] = append(answered[wf], str(run.raw, "execute_id"))
	}
	p1.kill(t)

	p2 := startProcess(t, bin, env)
	forgetConnections()
	for _, exec := range answered[chain] {
		checkComplete(t, p2.testServer, chain, exec, 20)
	}
	for _, exec := range answered[code] {
		checkComplete(t, p2.testServer, code, exec, 3)
	}
	db, err := sql.Open("sqlite", filepath.Join(env["PERGOLA_DATA_DIR"], "pergola.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var total, running int
	if err := db.QueryRow("SELECT COUNT(*), COALESCE(SUM(status = 'running'), 0) FROM workflow_runs").Scan(&total, &running); err != nil {
		t.Fatal(err)
	}
	if total != 10 || running != 0 {
		t.Fatalf("after the restart the database holds %d runs, %d running; want the 10 answered, none running", total, running)
	}
}
