package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCozeCoercionWarnings runs the coerce_* conformance canvases (their
// outputs are also checked by TestCozeConformance) and reads the run
// histories: what Coze's conversions could not convert is null in the
// output and a warning in the logs of the node that converted it, for
// runs through /v1/workflow/run, /v1/workflow/stream_run and
// stream_resume alike; the run itself succeeds.
func TestCozeCoercionWarnings(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			t.Run("parameters and outputs", func(t *testing.T) { c.coerceParams(t) })
			t.Run("resume answers", func(t *testing.T) { c.coerceResume(t) })
		})
	}
}

// paramWarnings are the warnings of the second run of coerce_params.
var paramWarnings = map[string][]string{
	"start": {`warning: count: cannot convert string "twelve" to integer`, "warning: ratio: cannot convert boolean true to number",
		"warning: on: cannot convert integer 1 to boolean", `warning: profile: "not json" is not a JSON object`,
		"warning: nums: cannot convert integer to array"},
	"n200": {`warning: output score: cannot convert string "high" to number`, `warning: output flags.2: cannot convert string "maybe" to boolean`},
}

func (c *chatSetup) coerceParams(t *testing.T) {
	cc := readCozeCase(t, filepath.Join(conformanceDir, "coerce_params.case.json"))
	id := c.importCase(t, "coerce_params", cc)
	run := cc.Runs[1]
	r := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": run.Inputs}).must(t, 200)
	c.checkWarnings(t, id, str(r.raw, "execute_id"), paramWarnings)
	events := c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": run.Inputs})
	if got := streamedOutput(t, events); !cmp.Equal(got, run.Output) {
		t.Errorf("streamed output differs (-want +got):\n%s", cmp.Diff(run.Output, got))
	}
	c.checkWarnings(t, id, doneExecuteID(t, events), paramWarnings)
	// The first run's parameters all convert: no warning at the start.
	r = c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": cc.Runs[0].Inputs}).must(t, 200)
	for _, n := range items(t, c.s.runHistory(t, id, str(r.raw, "execute_id")), "nodes") {
		if str(n, "node_id") == "start" && str(n, "logs") != "" {
			t.Errorf("start logs %q, want none", str(n, "logs"))
		}
	}
}

func (c *chatSetup) coerceResume(t *testing.T) {
	cc := readCozeCase(t, filepath.Join(conformanceDir, "coerce_resume.case.json"))
	id := c.importCase(t, "coerce_resume", cc)
	events := c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": map[string]any{"who": ""}})
	in, _ := events[len(events)-2].data["interrupt_data"].(map[string]any)
	// A required field stays required, and the answer must be an object.
	for answer, msg := range map[string]string{`{"ok":true}`: "resume_data: age is required", `[1]`: "resume_data: must be a JSON object"} {
		c.s.call(t, "POST", "/v1/workflow/stream_resume", bootstrapToken, map[string]any{"workflow_id": id,
			"event_id": str(in, "event_id"), "resume_data": answer, "interrupt_type": in["type"]}).fails(t, 400, 4000, msg)
	}
	events = c.answer(t, id, events, cc.Runs[0].Dialog[0].Asked, cc.Runs[0].Dialog[0].Answer)
	if got := streamedOutput(t, events); !cmp.Equal(got, cc.Runs[0].Output) {
		t.Errorf("output differs (-want +got):\n%s", cmp.Diff(cc.Runs[0].Output, got))
	}
	c.checkWarnings(t, id, doneExecuteID(t, events), map[string][]string{
		"n300": {`warning: output ok: cannot convert string "maybe" to boolean`}})
}

// importCase imports and publishes a conformance canvas.
func (c *chatSetup) importCase(t *testing.T, name string, cc cozeCase) string {
	t.Helper()
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": name,
		"canvas": cc.Canvas}).must(t, 201)
	id := str(r.data["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

// checkWarnings reads a run's history: it succeeded and each node's logs
// hold the warnings.
func (c *chatSetup) checkWarnings(t *testing.T, id, executeID string, want map[string][]string) {
	t.Helper()
	hist := c.s.runHistory(t, id, executeID)
	if str(hist, "execute_status") != "Success" {
		t.Fatalf("run %s: status %q, want Success", executeID, str(hist, "execute_status"))
	}
	logs := map[string]string{}
	for _, n := range items(t, hist, "nodes") {
		logs[str(n, "node_id")] += str(n, "logs")
	}
	for node, warns := range want {
		for _, w := range warns {
			if !strings.Contains(logs[node], w) {
				t.Errorf("run %s node %s logs = %q, want %q", executeID, node, logs[node], w)
			}
		}
	}
}

// doneExecuteID is the execute_id of a stream's Done event.
func doneExecuteID(t *testing.T, events []wfEvent) string {
	t.Helper()
	if len(events) == 0 || events[len(events)-1].name != "Done" {
		t.Fatalf("the stream did not end with Done: %v", events)
	}
	return str(events[len(events)-1].data, "execute_id")
}
