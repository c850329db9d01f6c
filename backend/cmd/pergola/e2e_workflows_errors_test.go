package main

import (
	"encoding/json"
	"github.com/pergola-ai/pergola/workflow"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// httpWorkflow calls an allowed service, reads a field of its JSON, then
// calls a failing endpoint whose error port leads to a fallback, and a
// service the egress guard refuses, with on_error default.
const httpWorkflow = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "user", "type": "string", "required": true}]},
    {"id": "get", "type": "http", "config": {"url": "ALLOWED/users/{{u}}"}, "inputs": {"u": {"ref": {"node": "start", "path": "user"}}}},
    {"id": "parse", "type": "json_parse", "inputs": {"text": {"ref": {"node": "get", "path": "body"}}}, "outputs": [{"name": "name", "type": "string"}]},
    {"id": "fail", "type": "http", "config": {"method": "POST", "url": "ALLOWED/fail", "body_type": "json"}, "settings": {"on_error": "branch"}},
    {"id": "sorry", "type": "text", "config": {"op": "template", "template": "fallback: {{e}}"}, "inputs": {"e": {"ref": {"node": "fail", "path": "error.message"}}}},
    {"id": "fine", "type": "text", "config": {"op": "template", "template": "fine"}},
    {"id": "pick", "type": "variable_aggregate", "config": {"groups": {"text": ["a", "b"]}},
     "inputs": {"a": {"ref": {"node": "sorry", "path": "output"}}, "b": {"ref": {"node": "fine", "path": "output"}}}},
    {"id": "blocked", "type": "http", "config": {"url": "REFUSED/"}, "settings": {"on_error": "default", "default_output": {"body": "blocked"}}},
    {"id": "end", "type": "end", "inputs": {"name": {"ref": {"node": "parse", "path": "name"}}, "after": {"ref": {"node": "pick", "path": "text"}},
      "blocked": {"ref": {"node": "blocked", "path": "body"}}, "why": {"ref": {"node": "blocked", "path": "error.message"}}}}
  ],
  "edges": [{"from": "start", "to": "get"}, {"from": "get", "to": "parse"}, {"from": "parse", "to": "fail"},
            {"from": "fail", "from_port": "error", "to": "sorry"}, {"from": "fail", "to": "fine"}, {"from": "sorry", "to": "pick"},
            {"from": "fine", "to": "pick"}, {"from": "pick", "to": "blocked"}, {"from": "blocked", "to": "end"}]
}`

// failingWorkflow runs code that never ends, or an llm node whose model
// fails, depending on its parameter.
const failingWorkflow = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "mode", "type": "string", "required": true}]},
    {"id": "which", "type": "condition", "config": {"branches": [{"port": "code", "conditions": [{"left": "m", "op": "eq", "value": "code"}]}]},
     "inputs": {"m": {"ref": {"node": "start", "path": "mode"}}}},
    {"id": "spin", "type": "code", "title": "Spin", "config": {"code": "function main() { while (true) {} }"}, "settings": {"timeout_ms": 200},
     "outputs": [{"name": "x", "type": "string"}]},
    {"id": "ask", "type": "llm", "config": {"model_id": "fake", "prompt": "hello"}},
    {"id": "end", "type": "end"}
  ],
  "edges": [{"from": "start", "to": "which"}, {"from": "which", "from_port": "code", "to": "spin"}, {"from": "which", "from_port": "else", "to": "ask"},
            {"from": "spin", "to": "end"}, {"from": "ask", "to": "end"}]
}`

// TestWorkflowBadInputThroughTheAPI checks that invalid definitions,
// wrong parameters, code that never ends, a model error and failing or
// refused HTTP requests all end with readable, recorded errors, and that
// the server stays healthy.
func TestWorkflowBadInputThroughTheAPI(t *testing.T) {
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "database down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"name": strings.TrimPrefix(r.URL.Path, "/users/")})
	}))
	defer svc.Close()
	refused := httptest.NewServer(http.NotFoundHandler())
	defer refused.Close()
	b := backends()[0]
	env := b.env
	b.env = func(t *testing.T) map[string]string {
		e := env(t)
		e["PERGOLA_EGRESS_ALLOW"] = strings.TrimPrefix(svc.URL, "http://")
		return e
	}
	c := newChatSetup(t, b)
	s := c.s

	// Definitions are validated before they are saved.
	bad := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "bad",
		"definition": map[string]any{"nodes": []any{map[string]any{"id": "start", "type": "start"}, map[string]any{"id": "x", "type": "nope"}}, "edges": []any{}}})
	bad.fails(t, 400, 4000, `nodes[x].type: unknown node type "nope"`)
	v := s.call(t, "POST", "/api/workflows/validate", bootstrapToken, map[string]any{"definition": "nodes: []\nedges: []\n"}).must(t, 200)
	if v.data["valid"] != false || len(items(t, v.data, "problems")) != 2 {
		t.Fatalf("validate = %v", v.data)
	}

	// HTTP nodes: allowed, failing (handled), refused (handled).
	def := strings.ReplaceAll(strings.ReplaceAll(httpWorkflow, "ALLOWED", svc.URL), "REFUSED", refused.URL)
	id := createPublished(t, s, c.ws, "calls", def)
	run := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": `{"user": "ada"}`}).must(t, 200)
	var out map[string]string
	_ = json.Unmarshal([]byte(run.raw["data"].(string)), &out)
	if out["name"] != "ada" || !strings.Contains(out["after"], "answered 500 Internal Server Error") || out["blocked"] != "blocked" ||
		!strings.Contains(out["why"], "egress refused") {
		t.Fatalf("output = %v", out)
	}

	// A run that fails: 400 with its execute id and the node; recorded.
	id = createPublished(t, s, c.ws, "failing", failingWorkflow)
	failed := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": map[string]any{"mode": "code"}})
	failed.fails(t, 400, 4000, "node spin (Spin) failed: the code ran longer than its time limit and was stopped (200ms)")
	hist := s.runHistory(t, id, str(failed.raw, "execute_id"))
	if str(hist, "execute_status") != "Fail" || !strings.Contains(str(hist, "error_message"), "time limit") || nodeStatuses(t, hist)["spin"] != "failed" {
		t.Fatalf("history of the failed run = %v", hist)
	}
	c.llm.Enqueue(fakellm.Fail(503, "the model is overloaded"))
	events := s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": map[string]any{"mode": "llm"}})
	if len(events) != 2 || events[0].name != "Error" || !strings.Contains(str(events[0].data, "error_message"), "node ask failed: model error") ||
		events[1].name != "Done" {
		t.Fatalf("stream of a model error = %+v", events)
	}

	// Wrong requests are JSON errors, before anything runs.
	s.call(t, "POST", "/v1/workflow/stream_run", bootstrapToken, map[string]any{"workflow_id": id}).fails(t, 400, 4000, "parameters.mode: is required")
	s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "is_async": true}).fails(t, 400, 4000, "parameters.mode: is required")
	s.call(t, "GET", "/v1/workflows/"+id+"/run_histories/123", bootstrapToken, nil).fails(t, 404, 4200, "run 123 not found")
	draft := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "draft_only"}).must(t, 201)
	s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": str(draft.data, "id")}).fails(t, 400, 4000, "is not published")

	nodes := s.call(t, "GET", "/api/workflow-nodes", bootstrapToken, nil).must(t, 200)
	if n, want := len(items(t, nodes.data, "types")), len(workflow.NewCatalog().Types()); n != want || n < 25 {
		t.Errorf("%d node types described, want every type of the catalog (%d)", n, want)
	}
	s.call(t, "GET", "/healthz", "", nil).must(t, 200)
}

// createPublished creates a workflow from def and publishes it.
func createPublished(t *testing.T, s *testServer, ws, name, def string) string {
	t.Helper()
	w := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": name,
		"definition": json.RawMessage(def)}).must(t, 201)
	id := str(w.data, "id")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, map[string]any{"description": "first"}).must(t, 201)
	return id
}

// TestWorkflowConsoleRoutes drives a workflow's life through the console:
// create, read, edit, publish twice, read the versions, delete.
func TestWorkflowConsoleRoutes(t *testing.T) {
	s := startServer(t, nil)
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	w := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "life"}).must(t, 201)
	id := str(w.data, "id")
	got := s.call(t, "GET", "/api/workflows/"+id, bootstrapToken, nil).must(t, 200)
	if got.data["draft_revision"].(float64) != 1 || got.data["definition"] == nil {
		t.Fatalf("get = %v", got.data)
	}
	edited := s.call(t, "PATCH", "/api/workflows/"+id, bootstrapToken, map[string]any{"name": "life2",
		"definition": "nodes:\n  - {id: start, type: start}\n  - {id: end, type: end, config: {mode: text, template: done}}\nedges:\n  - {from: start, to: end}\n"}).must(t, 200)
	if str(edited.data, "name") != "life2" || edited.data["draft_revision"].(float64) != 2 {
		t.Fatalf("patch = %v", edited.data)
	}
	s.call(t, "PATCH", "/api/workflows/"+id, bootstrapToken, map[string]any{"name": "no spaces"}).fails(t, 400, 4000, "name:")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, map[string]any{"description": "again"}).must(t, 201)
	vs := s.call(t, "GET", "/api/workflows/"+id+"/versions", bootstrapToken, nil).must(t, 200)
	if list := items(t, vs.data, "items"); len(list) != 2 || list[0]["version"].(float64) != 2 || str(list[0], "description") != "again" {
		t.Fatalf("versions = %v", vs.data)
	}
	v1 := s.call(t, "GET", "/api/workflows/"+id+"/versions/1", bootstrapToken, nil).must(t, 200)
	if v1.data["definition"] == nil {
		t.Fatalf("version 1 = %v", v1.data)
	}
	listed := s.call(t, "GET", "/api/workflows?workspace_id="+ws+"&status=published", bootstrapToken, nil).must(t, 200)
	if len(items(t, listed.data, "items")) != 1 {
		t.Fatalf("list = %v", listed.data)
	}
	s.call(t, "DELETE", "/api/workflows/"+id, bootstrapToken, nil).must(t, 200)
	s.call(t, "GET", "/api/workflows/"+id, bootstrapToken, nil).fails(t, 404, 4200, "workflow "+id+" not found")
}
