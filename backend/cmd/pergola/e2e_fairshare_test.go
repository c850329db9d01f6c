package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// timedCodeWorkflow is start, one JavaScript code node running code
// within timeoutMS, and end.
func timedCodeWorkflow(code string, timeoutMS int) json.RawMessage {
	c, _ := json.Marshal(code)
	return json.RawMessage(`{"nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "n", "type": "integer"}]},
    {"id": "code", "type": "code", "config": {"code": ` + string(c) + `}, "settings": {"timeout_ms": ` + fmt.Sprint(timeoutMS) + `},
     "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}, "outputs": [{"name": "v", "type": "string"}]},
    {"id": "end", "type": "end", "inputs": {"v": {"ref": {"node": "code", "path": "v"}}}}],
  "edges": [{"from": "start", "to": "code"}, {"from": "code", "to": "end"}]}`)
}

const endlessLoop = `function main() { for (;;) {} }`

// TestFairShareOfCodeWorkers: on a server with four code workers and a
// share of one half, workspace A test-runs endless loops until it holds
// its two workers; A's next code node waits its time limit and fails
// naming A's share, while workspace B's trivial code nodes run at once
// and succeed. The waits show in pergola_share_wait_seconds. The pools
// are per process, so one backend (SQLite) tells it all.
func TestFairShareOfCodeWorkers(t *testing.T) {
	s := startServer(t, map[string]string{"PERGOLA_CODE_PARALLEL": "4", "PERGOLA_FAIR_SHARE": "0.5"})
	wsA := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	wsB := str(s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Other team"}).must(t, 201).data, "id")
	create := func(ws, name, code string, timeoutMS int) string {
		w := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": name,
			"definition": timedCodeWorkflow(code, timeoutMS)}).must(t, 201)
		return str(w.data, "id")
	}
	hog := create(wsA, "hog", endlessLoop, 1500)
	impatient := create(wsA, "impatient", `function main() { return { v: "never" }; }`, 200)
	trivial := create(wsB, "trivial", `function main({ params }) { return { v: "n=" + params.n }; }`, 1000)

	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if body, err := testRun(s, hog); err != nil || !strings.Contains(body, "ran longer than its time limit") {
				t.Errorf("endless loop of A: %v %s, want a timeout", err, body)
			}
		})
	}
	defer wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for sum(scrape(t, s).series("pergola_share_wait_seconds_count", "pool", "code", "outcome", "ran")) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("A's two endless loops did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}

	body, err := testRun(s, impatient)
	if err != nil || !strings.Contains(body, "this workspace already uses its share of the code pool (2 of 4 at once)") {
		t.Fatalf("A's third code node: %v %s, want a refusal naming A's share", err, body)
	}
	for i := range 3 {
		start := time.Now()
		ok := s.call(t, "POST", "/api/workflows/"+trivial+"/test_run", bootstrapToken,
			map[string]any{"parameters": map[string]any{"n": i}}).must(t, 200)
		if str(ok.data, "status") != "success" || !strings.Contains(fmt.Sprint(ok.data["output"]), fmt.Sprintf("n=%d", i)) {
			t.Fatalf("B's trivial node while A holds its share = %v", ok.data)
		}
		t.Logf("B's trivial run %d: %s", i, time.Since(start))
	}
	m := scrape(t, s)
	if got := sum(m.series("pergola_share_wait_seconds_count", "pool", "code", "outcome", "refused")); got != 1 {
		t.Errorf("refused waits of the code pool = %v, want 1", got)
	}
}

func sum(vs []float64) float64 {
	var n float64
	for _, v := range vs {
		n += v
	}
	return n
}
