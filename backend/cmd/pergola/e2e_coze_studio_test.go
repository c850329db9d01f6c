package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// studioCase is a run of one of Coze Studio's own example canvases with
// the inputs and the output of Coze Studio's own tests. The canvases are
// not kept here: they are read from PERGOLA_COZE_EXAMPLES.
type studioCase struct {
	Name   string `json:"name"`
	Canvas string `json:"canvas"` // relative to the examples directory
	// Deps are canvases the case's canvas runs (sub-workflows), imported
	// first and mapped from their Coze ids.
	Deps []struct {
		Canvas string `json:"canvas"`
		CozeID string `json:"coze_id"`
	} `json:"deps"`
	Inputs map[string]any `json:"inputs"`
	Output map[string]any `json:"output"`
	// StreamOutput, when set, is what the stream's End Message carries
	// where Coze's run answers Output (a text answer: {"output": text}).
	StreamOutput map[string]any `json:"stream_output"`
	Model        []modelReply   `json:"model"`
	// Answers resume the run's interrupts in order (a string as it is,
	// anything else as its JSON text); such runs are streamed only.
	Answers []any `json:"answers"`
	// AppVariables, when given, are the defaults of string variables of
	// an app the case runs with (Coze's tests give them with a mock).
	AppVariables map[string]string `json:"app_variables"`
	// AnyOrder compares lists as sets, as Coze's tests do where the items
	// run side by side and the model's replies go to whichever asks first.
	AnyOrder bool   `json:"any_order"`
	Note     string `json:"note"`
}

const studioRuns = "../../../workflow/cozeimport/testdata/conformance/studio_runs.json"

// TestCozeStudioExamples measures how many runs of Coze Studio's example
// canvases give the output Coze Studio's tests expect, each through
// /v1/workflow/run and stream_run (stream_resume for the answers). It
// runs only with PERGOLA_COZE_EXAMPLES naming Coze Studio's
// backend/domain/workflow/internal/canvas/examples (see the README).
func TestCozeStudioExamples(t *testing.T) {
	dir := os.Getenv("PERGOLA_COZE_EXAMPLES")
	if dir == "" {
		t.Skip("PERGOLA_COZE_EXAMPLES is not set")
	}
	raw, err := os.ReadFile(studioRuns)
	if err != nil {
		t.Fatal(err)
	}
	var cases []studioCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	c := newChatSetup(t, backends()[0])
	var checked, matched int
	for _, sc := range cases {
		for _, mode := range sc.modes() {
			checked++
			if t.Run(sc.Name+"/"+mode, func(t *testing.T) { c.studioRun(t, dir, sc, mode) }) {
				matched++
			}
		}
	}
	t.Logf("%d of %d runs give Coze Studio's output", matched, checked)
}

// modes are the ways a case is run: streamed with answers, or both.
func (sc studioCase) modes() []string {
	if len(sc.Answers) > 0 {
		return []string{"stream_resume"}
	}
	return []string{"run", "stream_run"}
}

// studioRun imports the case's canvases, runs it one way and compares.
func (c *chatSetup) studioRun(t *testing.T, dir string, sc studioCase, mode string) {
	flows := map[string]any{}
	for _, d := range sc.Deps {
		flows[d.CozeID] = map[string]any{"id": c.studioImport(t, dir, d.Canvas, nil), "version": 1}
	}
	id := c.studioImport(t, dir, sc.Canvas, flows)
	params := map[string]any{"workflow_id": id, "parameters": sc.Inputs}
	if sc.AppVariables != nil {
		params["app_id"] = c.studioApp(t, sc.AppVariables)
	}
	c.script(sc.Model)
	var got map[string]any
	want := sc.Output
	switch mode {
	case "run":
		got = c.runData(t, params)
	default:
		events := c.s.workflowStream(t, params)
		for _, a := range sc.Answers {
			events = c.resumeWith(t, id, events, a)
		}
		got = streamedOutput(t, events)
		if sc.StreamOutput != nil {
			want = sc.StreamOutput
		}
	}
	var opts []cmp.Option
	if sc.AnyOrder {
		opts = append(opts, cmpopts.SortSlices(func(a, b any) bool { return fmt.Sprint(a) < fmt.Sprint(b) }))
	}
	if !cmp.Equal(got, want, opts...) {
		t.Errorf("%s: output differs (-coze +pergola):\n%s", sc.Note, cmp.Diff(want, got, opts...))
	}
}

// studioImport imports and publishes a canvas of the examples with
// allow_partial and the fake model for every model.
func (c *chatSetup) studioImport(t *testing.T, dir, canvas string, flows map[string]any) string {
	t.Helper()
	c.imported++
	raw, err := os.ReadFile(filepath.Join(dir, canvas))
	if err != nil {
		t.Fatal(err)
	}
	mappings := map[string]any{"default_model_id": "fake"}
	if len(flows) > 0 {
		mappings["workflows"] = flows
	}
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, map[string]any{"workspace_id": c.ws,
		"name": fmt.Sprintf("coze_%d", c.imported), "canvas": json.RawMessage(raw), "mappings": mappings, "allow_partial": true}).must(t, 201)
	id := str(r.data["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

// resumeWith answers the interrupt a stream stopped at.
func (c *chatSetup) resumeWith(t *testing.T, id string, events []wfEvent, answer any) []wfEvent {
	t.Helper()
	n := len(events)
	if n < 2 || events[n-2].name != "Interrupt" {
		t.Fatalf("the run did not stop to ask: %v", events)
	}
	text, ok := answer.(string)
	if !ok {
		b, _ := json.Marshal(answer)
		text = string(b)
	}
	in, _ := events[n-2].data["interrupt_data"].(map[string]any)
	return c.s.postStream(t, "/v1/workflow/stream_resume", map[string]any{"workflow_id": id, "event_id": str(in, "event_id"),
		"resume_data": text, "interrupt_type": in["type"]})
}

// studioApp creates an app with string variables of these defaults.
func (c *chatSetup) studioApp(t *testing.T, defaults map[string]string) string {
	t.Helper()
	var vars []map[string]any
	for name, v := range defaults {
		vars = append(vars, map[string]any{"name": name, "type": "string", "default": v})
	}
	c.imported++
	r := c.s.call(t, "POST", "/api/apps", bootstrapToken, map[string]any{"workspace_id": c.ws,
		"name": fmt.Sprintf("app_%d", c.imported), "variables": vars}).must(t, 201)
	return str(r.data, "id")
}

// runData runs a workflow through /v1/workflow/run and returns its data.
func (c *chatSetup) runData(t *testing.T, params map[string]any) map[string]any {
	t.Helper()
	run := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, params).must(t, 200)
	var out map[string]any
	if err := json.Unmarshal([]byte(str(run.raw, "data")), &out); err != nil {
		t.Fatalf("data = %v is not a JSON string of an object", run.raw["data"])
	}
	return out
}
