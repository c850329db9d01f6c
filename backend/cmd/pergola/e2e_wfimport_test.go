package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// cozeCanvas reads a Coze Studio canvas of the converter's test data.
func cozeCanvas(t *testing.T, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile("../../../workflow/cozeimport/testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// importCanvas imports a canvas, publishes the workflow and returns its
// id and the report.
func (c *chatSetup) importCanvas(t *testing.T, name string) (string, map[string]any) {
	t.Helper()
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": name,
		"canvas": cozeCanvas(t, name), "mappings": map[string]any{"models": map[string]string{"1001": "fake"}}}).must(t, 201)
	wf, _ := r.data["workflow"].(map[string]any)
	id := str(wf, "id")
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	report, _ := r.data["report"].(map[string]any)
	return id, report
}

// runOutput runs a published workflow through the Coze API and returns
// its output object.
func (c *chatSetup) runOutput(t *testing.T, id string, params map[string]any) map[string]any {
	t.Helper()
	run := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": params}).must(t, 200)
	var out map[string]any
	if err := json.Unmarshal([]byte(str(run.raw, "data")), &out); err != nil {
		t.Fatalf("data = %v is not a JSON string of an object", run.raw["data"])
	}
	return out
}

// reportIDs lists the node ids of one list of an import report.
func reportIDs(report map[string]any, list string) []string {
	var ids []string
	for _, e := range report[list].([]any) {
		ids = append(ids, e.(map[string]any)["id"].(string))
	}
	return ids
}

// TestImportedCozeCanvasesRun imports Coze Studio canvases through the
// console API and runs them through the Coze API: an LLM on the fake
// model, and a selector, a loop with break and loop variable, an
// aggregator.
func TestImportedCozeCanvasesRun(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)

			id, report := c.importCanvas(t, "simple")
			if got := reportIDs(report, "converted"); !slices.Equal(got, []string{"100001", "123", "900001"}) {
				t.Fatalf("converted = %v", got)
			}
			if out := c.runOutput(t, id, map[string]any{"query": "hello"}); out["output"] != "echo: Answer: hello" {
				t.Fatalf("simple output = %v", out)
			}

			id, _ = c.importCanvas(t, "branch_loop")
			out := c.runOutput(t, id, map[string]any{"items": []string{"a", "b", "c", "d"}})
			if b, _ := json.Marshal(out); string(b) != `{"marks":["#a","#b"],"note":"#b"}` {
				t.Fatalf("loop output = %s", b)
			}
			out = c.runOutput(t, id, map[string]any{"items": []string{}})
			if out["note"] != "nothing to do" {
				t.Fatalf("else branch output = %v", out)
			}
		})
	}
}

// TestImportReportsWhatItCannotConvert: unsupported nodes fail the import
// by id and type and create nothing, unless allow_partial; TypeScript and
// Python code nodes are imported and run.
func TestImportReportsWhatItCannotConvert(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	body := map[string]any{"workspace_id": c.ws, "name": "unknown", "canvas": string(cozeCanvas(t, "unknown"))}
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, body)
	r.fails(t, 400, 4000, "nodes[200] (type 16)")
	if !strings.Contains(r.msg, "nodes[300] (type 999)") || !slices.Equal(reportIDs(r.data["report"].(map[string]any), "unsupported"), []string{"200", "300"}) {
		t.Fatalf("failure = %q %v", r.msg, r.data)
	}
	list := c.s.call(t, "GET", "/api/workflows?workspace_id="+c.ws, bootstrapToken, nil).must(t, 200)
	if n := len(items(t, list.data, "items")); n != 0 {
		t.Fatalf("a refused import created %d workflows", n)
	}

	body["allow_partial"] = true
	r = c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, body).must(t, 201)
	if got := reportIDs(r.data["report"].(map[string]any), "skipped"); !slices.Equal(got, []string{"400"}) {
		t.Fatalf("skipped = %v", got)
	}

	id, report := c.importCanvas(t, "code")
	if got := reportIDs(report, "converted"); !slices.Contains(got, "200") || !slices.Contains(got, "300") {
		t.Fatalf("converted = %v, want the TypeScript (200) and the Python (300) code nodes", got)
	}
	run := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": map[string]any{"x": 2}}).must(t, 200)
	if text := str(run.raw, "data"); !strings.Contains(text, "4") || !strings.Contains(text, "6") {
		t.Fatalf("the run of the code nodes answered %q, want the doubled (4) and the tripled (6) x", text)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
