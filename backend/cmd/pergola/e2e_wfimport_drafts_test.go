package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// problemTexts joins the field and message of each problem an answer
// lists under key.
func problemTexts(t *testing.T, data map[string]any, key string) string {
	t.Helper()
	var out []string
	for _, p := range items(t, data, key) {
		out = append(out, str(p, "field")+": "+str(p, "message"))
	}
	return strings.Join(out, "\n")
}

// fixedDraft is a valid definition that replaces a kept invalid draft.
const fixedDraft = `{"nodes":[{"id":"start","type":"start","outputs":[{"name":"q","type":"string"}]},` +
	`{"id":"end","type":"end","inputs":{"output":{"ref":{"node":"start","path":"q"}}}}],` +
	`"edges":[{"from":"start","to":"end"}]}`

// TestImportKeepsInvalidDrafts shows a Coze canvas that converts but does
// not validate (a reference to a node not in the canvas, a reference to no
// node): refused with 400 and nothing created, unless allow_partial, which
// keeps it as a draft and lists its problems as Coze keeps such drafts;
// test runs and publishing refuse that draft naming the problem until an
// edit fixes it. keep_invalid does the same on POST and PATCH
// /api/workflows, whose answers list the problems.
func TestImportKeepsInvalidDrafts(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			dangling := czCanvas(t, []cz{czStart(czOut("q", "string")), czEnd(czParam("output", czRef("555", "text", "string")))},
				czEdge("100001", "900001"))
			noNode := czCanvas(t, []cz{czStart(czOut("q", "string")), czEnd(czParam("output", czRef("", "q", "string")))},
				czEdge("100001", "900001"))
			before := c.workflowCount(t)
			r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "canvas": dangling})
			c.mustFail(t, r, before, "references node 555, which is not in the canvas")
			r = c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "canvas": noNode})
			c.mustFail(t, r, before, "references no node (blockID is empty)")

			for name, canvas := range map[string]json.RawMessage{`no node "555"`: dangling, `no node ""`: noNode} {
				r = c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "canvas": canvas,
					"allow_partial": true}).must(t, 201)
				if got := problemTexts(t, r.data, "problems"); !strings.Contains(got, "nodes[end].inputs.output.ref: "+name) {
					t.Fatalf("problems of the kept draft = %q, want the reference to %s", got, name)
				}
				c.fixKeptDraft(t, str(r.data["workflow"].(map[string]any), "id"), name)
			}

			r = c.s.call(t, "POST", "/api/workflows", bootstrapToken, cz{"workspace_id": c.ws, "name": "cycle",
				"definition": cycleDefinition})
			r.fails(t, 400, 4000, "cycle")
			r = c.s.call(t, "POST", "/api/workflows", bootstrapToken, cz{"workspace_id": c.ws, "name": "cycle",
				"definition": cycleDefinition, "keep_invalid": true}).must(t, 201)
			if got := problemTexts(t, r.data, "problems"); !strings.Contains(got, "cycle") {
				t.Fatalf("problems = %q, want the cycle", got)
			}
			id := str(r.data, "id")
			r = c.s.call(t, "PATCH", "/api/workflows/"+id, bootstrapToken, cz{"definition": cycleDefinition})
			r.fails(t, 400, 4000, "cycle")
			c.fixKeptDraft(t, id, "cycle")
		})
	}
}

// cycleDefinition is a definition whose edges form a cycle.
const cycleDefinition = `{"nodes":[{"id":"start","type":"start","outputs":[{"name":"q","type":"string"}]},` +
	`{"id":"a","type":"text","config":{"op":"template","template":"{{q}}"},"inputs":{"q":{"ref":{"node":"start","path":"q"}}}},` +
	`{"id":"b","type":"text","config":{"op":"template","template":"{{q}}"},"inputs":{"q":{"ref":{"node":"a","path":"output"}}}},` +
	`{"id":"end","type":"end","inputs":{"output":{"ref":{"node":"b","path":"output"}}}}],` +
	`"edges":[{"from":"start","to":"a"},{"from":"a","to":"b"},{"from":"b","to":"a"},{"from":"b","to":"end"}]}`

// fixKeptDraft checks a kept invalid draft can be read but not run or
// published (each naming want), then fixes it with an edit and runs it.
func (c *chatSetup) fixKeptDraft(t *testing.T, id, want string) {
	t.Helper()
	got := c.s.call(t, "GET", "/api/workflows/"+id, bootstrapToken, nil).must(t, 200)
	if len(got.data["definition"].(map[string]any)["nodes"].([]any)) == 0 {
		t.Fatalf("kept draft has no nodes: %v", got.data)
	}
	c.s.call(t, "POST", "/api/workflows/"+id+"/test_run", bootstrapToken, cz{"parameters": cz{"q": "hi"}}).fails(t, 400, 4000, want)
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).fails(t, 400, 4000, want)
	r := c.s.call(t, "PATCH", "/api/workflows/"+id, bootstrapToken, cz{"definition": fixedDraft, "keep_invalid": true}).must(t, 200)
	if _, listed := r.data["problems"]; listed {
		t.Fatalf("a valid draft lists problems: %v", r.data["problems"])
	}
	c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	if out := c.runOutput(t, id, cz{"q": "hi"}); out["output"] != "hi" {
		t.Fatalf("fixed draft output = %v", out)
	}
}
