package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// refusedRun finds the run id in the message of a refused async run.
var refusedRun = regexp.MustCompile(`run (\d+) was not started`)

// TestAsyncRunRefusedWhenQueueFull runs the server with a backlog bound of
// one queued run, on both back ends. While a slow async run holds the
// queue, another is refused with 429, code 4013 and Retry-After; the
// refused run is stored as failed, never left running for a worker that
// will not come. Once the slow run is done the queue accepts runs again.
func TestAsyncRunRefusedWhenQueueFull(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			env["PERGOLA_QUEUE_MAX_BACKLOG"] = "1"
			s := startServer(t, env)
			id := s.publishedWorkflow(t, "slow", slowWorkflow)
			slow := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "is_async": true,
				"parameters": map[string]any{"ms": 3000}}).must(t, 200)

			refused := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "is_async": true,
				"parameters": map[string]any{"ms": 1}})
			refused.fails(t, 429, 4013, "the server is busy")
			if got := refused.header.Get("Retry-After"); got == "" || strings.Trim(got, "0123456789") != "" {
				t.Fatalf("Retry-After = %q, want a number of seconds", got)
			}
			m := refusedRun.FindStringSubmatch(refused.msg)
			if m == nil {
				t.Fatalf("the refusal %q does not name the run that was not started", refused.msg)
			}
			h := s.runHistory(t, id, m[1])
			if str(h, "execute_status") != "Fail" || !strings.Contains(str(h, "error_message"), "not started") {
				t.Fatalf("the refused run is %s (%q); want Fail, not started", str(h, "execute_status"), str(h, "error_message"))
			}

			wantSucceeded(t, s, id, str(slow.raw, "execute_id"))
			again := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "is_async": true,
				"parameters": map[string]any{"ms": 1}}).must(t, 200)
			wantSucceeded(t, s, id, str(again.raw, "execute_id"))
			if h := s.runHistory(t, id, m[1]); str(h, "execute_status") != "Fail" {
				t.Fatalf("the refused run was run after all: %s", str(h, "execute_status"))
			}
		})
	}
}

// publishedWorkflow creates and publishes a workflow in the bootstrap
// workspace and returns its id.
func (s *testServer) publishedWorkflow(t *testing.T, name, definition string) string {
	t.Helper()
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	id := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": name,
		"definition": json.RawMessage(definition)}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

// wantSucceeded waits for an async run to end and checks it succeeded.
func wantSucceeded(t *testing.T, s *testServer, workflowID, executeID string) {
	t.Helper()
	h := waitHistory(t, s, workflowID, executeID, "the run to end", func(h map[string]any) bool {
		return str(h, "execute_status") != "Running"
	})
	if str(h, "execute_status") != "Success" {
		t.Fatalf("run %s ended %s: %s", executeID, str(h, "execute_status"), str(h, "error_message"))
	}
}
