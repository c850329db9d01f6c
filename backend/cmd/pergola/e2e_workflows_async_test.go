package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// slowWorkflow runs a quick code node, then one busy for a few seconds.
const slowWorkflow = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "ms", "type": "integer", "required": true}]},
    {"id": "first", "type": "code", "config": {"code": "function main({ params }) { return { at: 1 }; }"},
     "outputs": [{"name": "at", "type": "integer"}]},
    {"id": "slow", "type": "code", "settings": {"timeout_ms": 20000},
     "config": {"code": "function main({ params }) { const t = Date.now(); while (Date.now() - t < params.ms) {} return { waited: params.ms }; }"},
     "inputs": {"ms": {"ref": {"node": "start", "path": "ms"}}}, "outputs": [{"name": "waited", "type": "integer"}]},
    {"id": "end", "type": "end", "inputs": {"waited": {"ref": {"node": "slow", "path": "waited"}}}}
  ],
  "edges": [{"from": "start", "to": "first"}, {"from": "first", "to": "slow"}, {"from": "slow", "to": "end"}]
}`

// TestWorkflowAsyncRunSurvivesItsProcess runs the pergola binary on
// MariaDB and Redis, queues an async run, kills the process with SIGKILL
// while the run is busy, and starts a second process: it takes the run
// up once the lease ends and finishes it; the history shows the nodes the
// first process finished, redone. Then an async run is cancelled while it
// runs, and cancelling it again is refused.
func TestWorkflowAsyncRunSurvivesItsProcess(t *testing.T) {
	env := backends()[1].env(t)
	bin := filepath.Join(t.TempDir(), "pergola")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env["PERGOLA_WORKFLOW_LEASE"] = "1500ms"
	p1 := startProcess(t, bin, env)
	ws := str(items(t, p1.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	id := str(p1.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "slow",
		"definition": json.RawMessage(slowWorkflow)}).must(t, 201).data, "id")
	p1.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)

	run := p1.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "is_async": true,
		"parameters": map[string]any{"ms": 2500}}).must(t, 200)
	exec := str(run.raw, "execute_id")
	if exec == "" || run.raw["data"] != nil && run.raw["data"] != "" {
		t.Fatalf("an async run answers %v", run.raw)
	}
	waitHistory(t, p1.testServer, id, exec, "the first node to finish", func(h map[string]any) bool {
		return str(h, "execute_status") == "Running" && nodeStatuses(t, h)["first"] == "success"
	})
	p1.kill(t)

	p2 := startProcess(t, bin, env)
	h := waitHistory(t, p2.testServer, id, exec, "the run to succeed", func(h map[string]any) bool {
		return str(h, "execute_status") != "Running"
	})
	counts := map[string]int{}
	for _, n := range items(t, h, "nodes") {
		counts[str(n, "node_id")]++
	}
	if str(h, "execute_status") != "Success" || counts["first"] != 2 || counts["slow"] != 1 || counts["end"] != 1 {
		t.Fatalf("after the restart the run is %s (%s) with node records %v; want success, first redone", str(h, "execute_status"), str(h, "error_message"), counts)
	}

	run = p2.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "is_async": true,
		"parameters": map[string]any{"ms": 8000}}).must(t, 200)
	exec = str(run.raw, "execute_id")
	waitHistory(t, p2.testServer, id, exec, "the first node to finish", func(h map[string]any) bool {
		return nodeStatuses(t, h)["first"] == "success"
	})
	p2.call(t, "POST", "/api/workflows/"+id+"/runs/"+exec+"/cancel", bootstrapToken, nil).must(t, 200)
	h = waitHistory(t, p2.testServer, id, exec, "the run to be cancelled", func(h map[string]any) bool {
		return str(h, "execute_status") != "Running"
	})
	if str(h, "execute_status") != "Cancel" {
		t.Fatalf("a cancelled run is %s: %s", str(h, "execute_status"), str(h, "error_message"))
	}
	p2.call(t, "POST", "/api/workflows/"+id+"/runs/"+exec+"/cancel", bootstrapToken, nil).fails(t, 409, 4300, "has ended")
}

// process is a pergola binary serving on a port of its own.
type process struct {
	*testServer
	cmd *exec.Cmd
}

// startProcess runs the binary with env and waits until it answers.
func startProcess(t *testing.T, bin string, env map[string]string) *process {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "PERGOLA_ADDR="+addr, "PERGOLA_DATA_DIR="+t.TempDir(), "PERGOLA_BOOTSTRAP_TOKEN="+bootstrapToken,
		"PERGOLA_BOOTSTRAP_PASSWORD=admin-password", "PERGOLA_LOG_LEVEL=error")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{testServer: &testServer{base: "http://" + addr}, cmd: cmd}
	t.Cleanup(func() { p.kill(t) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pergola did not listen on %s in 30s", addr)
	return nil
}

// kill ends the process with SIGKILL: nothing is flushed or released.
func (p *process) kill(t *testing.T) {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

// waitHistory polls a run's history until ok, for at most 30s.
func waitHistory(t *testing.T, s *testServer, workflowID, executeID, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h := s.runHistory(t, workflowID, executeID)
		if ok(h) {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s: %s", what, fmt.Sprint(h))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
