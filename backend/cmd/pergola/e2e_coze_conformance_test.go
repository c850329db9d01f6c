package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// cozeCase is a conformance case: a canvas in Coze Studio's format and the
// outputs Coze gives for some inputs.
type cozeCase struct {
	Description string          `json:"description"`
	Canvas      json.RawMessage `json:"canvas"`
	Runs        []struct {
		Inputs map[string]any `json:"inputs"`
		Output map[string]any `json:"output"`
		// SyncOutput is /v1/workflow/run's data where it differs from the
		// streamed output: an End node answering text gives Coze's answer
		// object there ({content_type, data, type_for_model}).
		SyncOutput map[string]any `json:"sync_output"`
		// Model are the fake model's replies, in order, for each of the
		// sync and the streamed run; without them it echoes.
		Model []modelReply `json:"model"`
		// Dialog are the questions the run asks, each answered through
		// stream_resume; such runs are streamed only.
		Dialog []struct {
			Asked  string `json:"asked"`
			Answer string `json:"answer"`
		} `json:"dialog"`
	} `json:"runs"`
}

// modelReply is a scripted reply of the fake model.
type modelReply struct {
	Text      string `json:"text"`
	Reasoning string `json:"reasoning"`
	Status    int    `json:"status"` // an HTTP error with Error as its message
	Error     string `json:"error"`
}

// script queues the replies on the fake model.
func (c *chatSetup) script(replies []modelReply) {
	c.llm.Reset()
	for _, r := range replies {
		c.llm.Enqueue(fakellm.Reply{Text: r.Text, Reasoning: r.Reasoning, Status: r.Status, Error: r.Error})
	}
}

const conformanceDir = "../../../workflow/cozeimport/testdata/conformance"

// TestCozeConformance imports every *.case.json canvas through the console
// API and runs it with each case's inputs through /v1/workflow/run and
// /v1/workflow/stream_run; both must give the output Coze gives.
func TestCozeConformance(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, "*.case.json"))
	if len(files) == 0 {
		t.Fatal("no conformance cases in " + conformanceDir)
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			for _, f := range files {
				name := strings.TrimSuffix(filepath.Base(f), ".case.json")
				t.Run(name, func(t *testing.T) { c.conform(t, name, readCozeCase(t, f)) })
			}
		})
	}
}

func readCozeCase(t *testing.T, path string) cozeCase {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cc cozeCase
	if err := json.Unmarshal(raw, &cc); err != nil || len(cc.Runs) == 0 {
		t.Fatalf("%s: %v (runs: %d)", path, err, len(cc.Runs))
	}
	return cc
}

// conform imports and publishes the case's canvas and checks every run.
func (c *chatSetup) conform(t *testing.T, name string, cc cozeCase) {
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": name,
		"canvas": cc.Canvas, "mappings": map[string]any{"models": map[string]string{"1001": "fake"}}}).must(t, 201)
	id := str(r.data["workflow"].(map[string]any), "id")
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	for i, run := range cc.Runs {
		c.script(run.Model)
		if len(run.Dialog) > 0 {
			events := c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": run.Inputs})
			for _, d := range run.Dialog {
				events = c.answer(t, id, events, d.Asked, d.Answer)
			}
			if got := streamedOutput(t, events); !cmp.Equal(got, run.Output) {
				t.Errorf("run %d %v: output after the dialog differs (-want +got):\n%s", i, run.Inputs, cmp.Diff(run.Output, got))
			}
			continue
		}
		want := run.Output
		if run.SyncOutput != nil {
			want = run.SyncOutput
		}
		if got := c.runOutput(t, id, run.Inputs); !cmp.Equal(got, want) {
			t.Errorf("run %d %v: sync output differs (-want +got):\n%s", i, run.Inputs, cmp.Diff(want, got))
		}
		c.script(run.Model)
		if got := streamedOutput(t, c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": run.Inputs})); !cmp.Equal(got, run.Output) {
			t.Errorf("run %d %v: streamed output differs (-want +got):\n%s", i, run.Inputs, cmp.Diff(run.Output, got))
		}
	}
}

// streamedOutput is the End node's output: the object its last Message
// carries or, when it answers text (useAnswerContent), {"output": the
// text its Messages join to}.
func streamedOutput(t *testing.T, events []wfEvent) map[string]any {
	t.Helper()
	var end string
	for _, e := range events {
		if e.name == "Error" {
			t.Fatalf("the stream failed: %v", e.data)
		}
		if e.name == "Message" {
			end = str(e.data, "node_id")
		}
	}
	var pieces []string
	for _, e := range events {
		if e.name == "Message" && str(e.data, "node_id") == end {
			content, _ := e.data["content"].(string)
			pieces = append(pieces, content)
		}
	}
	var out map[string]any
	if len(pieces) == 0 {
		t.Fatalf("no Message in the stream: %v", events)
	}
	if err := json.Unmarshal([]byte(pieces[len(pieces)-1]), &out); err == nil && len(pieces) == 1 {
		return out
	}
	return map[string]any{"output": strings.Join(pieces, "")}
}

// answer checks that a stream stopped asking the question and resumes the
// run with the answer.
func (c *chatSetup) answer(t *testing.T, id string, events []wfEvent, asked, answer string) []wfEvent {
	t.Helper()
	n := len(events)
	if n < 2 || events[n-2].name != "Interrupt" {
		t.Fatalf("the run did not ask %q: %v", asked, events)
	}
	in, _ := events[n-2].data["interrupt_data"].(map[string]any)
	if str(in, "question") != asked {
		t.Fatalf("the run asked %q, want %q", str(in, "question"), asked)
	}
	return c.s.postStream(t, "/v1/workflow/stream_resume", map[string]any{"workflow_id": id, "event_id": str(in, "event_id"),
		"resume_data": answer, "interrupt_type": in["type"]})
}

// TestCozeConversionWarnings: what Coze's conversions cannot convert is
// null and a warning in the logs of the node, shown by a test run.
func TestCozeConversionWarnings(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	cc := readCozeCase(t, filepath.Join(conformanceDir, "type_convert.case.json"))
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "types",
		"canvas": cc.Canvas}).must(t, 201)
	id := str(r.data["workflow"].(map[string]any), "id")
	run := c.s.call(t, "POST", "/api/workflows/"+id+"/test_run", bootstrapToken, map[string]any{"parameters": map[string]any{"n": "twelve", "b": 1}}).must(t, 200)
	logs := map[string]string{}
	for _, n := range items(t, run.data, "nodes") {
		logs[str(n, "node_id")] = str(n, "logs")
	}
	if !strings.Contains(logs["start"], `warning: n: cannot convert string "twelve" to integer`) ||
		!strings.Contains(logs["start"], "warning: b: cannot convert integer 1 to boolean") {
		t.Fatalf("start node logs = %q", logs["start"])
	}
	if !strings.Contains(logs["n200"], `warning: output items.2: cannot convert string "three" to integer`) {
		t.Fatalf("code node logs = %q", logs["n200"])
	}
}
