package main

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"
)

// cityWorkflow answers its input "city".
const cityWorkflow = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "city", "type": "string", "required": true}]},
    {"id": "end", "type": "end", "inputs": {"city": {"ref": {"node": "start", "path": "city"}}}}
  ],
  "edges": [{"from": "start", "to": "end"}]
}`

// triggerEnv lets schedules tick every second and dispatchers look often.
func triggerEnv(env map[string]string) map[string]string {
	env["PERGOLA_TRIGGER_POLL"] = "50ms"
	env["PERGOLA_TRIGGER_MIN_INTERVAL"] = "1s"
	return env
}

// publishedCity creates and publishes cityWorkflow in the first workspace
// and returns the workspace and the workflow.
func publishedCity(t *testing.T, s *testServer) (string, string) {
	t.Helper()
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	id := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "echo",
		"definition": json.RawMessage(cityWorkflow)}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return ws, id
}

// triggerRuns counts the runs of workflow wf started by trigger id.
func triggerRuns(t *testing.T, s *testServer, wf, id string) int {
	t.Helper()
	r := s.call(t, "GET", "/api/workflows/"+wf+"/runs?page_size=1&user_id="+url.QueryEscape("trigger:"+id), bootstrapToken, nil).must(t, 200)
	n, _ := r.data["total"].(float64)
	return int(n)
}

// nextRun reads a schedule trigger's next tick.
func nextRun(t *testing.T, s *testServer, id string) time.Time {
	t.Helper()
	d := s.call(t, "GET", "/api/triggers/"+id, bootstrapToken, nil).must(t, 200).data
	at, err := time.Parse(time.RFC3339Nano, str(d, "next_run"))
	if err != nil {
		t.Fatalf("trigger %s next_run: %v (%v)", id, err, d)
	}
	return at
}

// waitTicks waits until at least want ticks of trigger id (interval 1s,
// first tick first) are claimed and each claimed tick has its run, and
// returns the ticks claimed. Claims come before runs, so more runs than
// claimed ticks means a tick ran twice: it fails at once. lost ticks may
// be claimed without a run (a process killed between the two).
func waitTicks(t *testing.T, s *testServer, wf, id string, first time.Time, want, lost int) int {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		before := nextRun(t, s, id)
		runs := triggerRuns(t, s, wf, id)
		after := nextRun(t, s, id)
		claimed := int(before.Sub(first) / time.Second)
		if runs > int(after.Sub(first)/time.Second) {
			t.Fatalf("%d runs for %d claimed ticks: a tick ran twice", runs, claimed)
		}
		if before.Equal(after) && claimed >= want && runs >= claimed-lost && runs <= claimed {
			return claimed
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 15s: %d ticks claimed, %d runs; want %d ticks each with its run", claimed, runs, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// intervalTrigger creates a 1-second schedule of wf and returns it and its
// first tick.
func intervalTrigger(t *testing.T, s *testServer, wf string) (string, time.Time) {
	t.Helper()
	d := s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": "every second", "kind": "schedule",
		"workflow_id": wf, "interval_seconds": 1, "missed": "run_once", "inputs": map[string]any{"city": "Paris"}}).must(t, 201).data
	return str(d, "id"), nextRun(t, s, str(d, "id"))
}
