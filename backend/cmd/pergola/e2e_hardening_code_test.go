package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// hostileCode are code-node scripts that try to take the server's memory,
// each a different way.
var hostileCode = []string{
	`function main() { let s = "x"; for (;;) s = s + s; }`,
	`function main() { let s = "é"; for (;;) s = s + s; }`,
	"function main() { let s = 'ab'; for (;;) s = `${s}${s}`; }",
	`function main() { let a = [0]; for (;;) a = a.concat(a); }`,
	`function main() { let o = { a: "x" }; for (;;) o = { a: JSON.stringify(o), b: JSON.stringify(o) }; }`,
	`function main() { const a = []; for (;;) a.push("x".repeat(3e7)); }`,
	`function main() { let s = ""; const c = "x".repeat(1e6); for (;;) s += c; }`,
	`function main() { const a = []; const s = "x".repeat(1e6); for (let i = 0; ; i++) a.push(s + i); }`,
	`function main() { const o = { s: "x".repeat(1e6) }; return { v: JSON.stringify(new Array(1000).fill(o)) }; }`,
	`function main() { const a = []; for (let i = 0; ; i++) a.push({ i, s: "x".repeat(1000) + i }); }`,
}

// memoryError matches the errors of code stopped for memory: by the
// watch ("used more memory than its limit") or by a guarded built-in
// ("would exceed the code node's memory limit").
var memoryError = regexp.MustCompile(`"status":"fail".*(more memory than its limit|memory limit)`)

// codeWorkflow is start, one code node running CODE, and end.
func codeWorkflow(code string) string {
	c, _ := json.Marshal(code)
	return `{"nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "n", "type": "integer"}]},
    {"id": "code", "type": "code", "config": {"code": ` + string(c) + `}, "settings": {"timeout_ms": 90000},
     "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}, "outputs": [{"name": "v", "type": "string"}]},
    {"id": "end", "type": "end", "inputs": {"v": {"ref": {"node": "code", "path": "v"}}}}],
  "edges": [{"from": "start", "to": "code"}, {"from": "code", "to": "end"}]}`
}

// serverCeiling is how much the server's own peak resident memory may
// grow while ten hostile code nodes run in worker processes.
const serverCeiling = 32 << 20

// TestHostileCodeNodesKeepTheServerUp test-runs ten workflows whose code
// nodes try to take the server's memory, all at once, on a server with
// the default settings: code nodes in worker processes (the workspace's
// share of them at once), each with a hard memory limit. Each run fails with a
// memory-limit error; the server process's own peak resident memory (this
// test process: the workers are other processes) grows by less than
// serverCeiling; a normal code node runs fine afterwards; and no worker
// process is left once the server has stopped.
func TestHostileCodeNodesKeepTheServerUp(t *testing.T) {
	s := startServer(t, backends()[0].env(t))
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	ids := make([]string, len(hostileCode))
	for i, code := range hostileCode {
		w := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": fmt.Sprintf("hostile_%d", i),
			"definition": json.RawMessage(codeWorkflow(code))}).must(t, 201)
		ids[i] = str(w.data, "id")
	}
	base := testenv.ResetPeakRSS(t)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			body, err := testRun(s, id)
			if err != nil || !memoryError.MatchString(body) {
				t.Errorf("hostile run %d: %v %s, want a memory-limit error", i, err, body)
			}
		})
	}
	wg.Wait()
	peak := testenv.ProcStatus(t, "VmHWM")
	t.Logf("server peak RSS %d MiB, baseline %d MiB, ceiling %d MiB over it", peak>>20, base>>20, serverCeiling>>20)
	if peak-base > serverCeiling {
		t.Errorf("server peak RSS grew by %d MiB, over the ceiling of %d MiB", (peak-base)>>20, serverCeiling>>20)
	}
	w := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "normal",
		"definition": json.RawMessage(codeWorkflow(`function main({ params }) { return { v: "n=" + params.n }; }`))}).must(t, 201)
	ok := s.call(t, "POST", "/api/workflows/"+str(w.data, "id")+"/test_run", bootstrapToken,
		map[string]any{"parameters": map[string]any{"n": 7}}).must(t, 200)
	if str(ok.data, "status") != "success" || !strings.Contains(fmt.Sprint(ok.data["output"]), "n=7") {
		t.Fatalf("normal test run after the hostile ones = %v", ok.data)
	}
	if len(codeWorkers(t)) == 0 {
		t.Fatal("no code worker process runs: the code nodes did not run in workers")
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if left := codeWorkers(t); len(left) > 0 {
		t.Fatalf("code worker processes %v are left after the server stopped", left)
	}
}

// codeWorkers returns the ids of this process's children running as code
// workers, zombies aside.
func codeWorkers(t *testing.T) []int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		cmdline, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || err2 != nil {
			continue
		}
		_, rest, _ := strings.Cut(string(stat), ") ")
		fields := strings.Fields(rest) // state, ppid, ...
		args := strings.Split(string(cmdline), "\x00")
		if len(fields) > 1 && fields[0] != "Z" && fields[1] == strconv.Itoa(os.Getpid()) && len(args) > 1 && args[1] == codeWorkerCommand {
			out = append(out, pid)
		}
	}
	return out
}

// testRun test-runs workflow id and returns the answer's body; it runs
// on goroutines other than the test's, so it returns errors.
func testRun(s *testServer, id string) (string, error) {
	req, err := http.NewRequest("POST", s.base+"/api/workflows/"+id+"/test_run", strings.NewReader(`{"parameters": {"n": 1}}`))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
