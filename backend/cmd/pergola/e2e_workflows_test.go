package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scoringWorkflow loops over names: a code node scores each, a condition
// sends high scores to a table insert, an aggregate labels every name;
// then a table query reads the high scores back, an llm node (the fake
// model, through the real OpenAI client) summarizes, and the end node
// returns text. TABLE is replaced by the table's id.
const scoringWorkflow = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "names", "type": "array", "items": {"type": "string"}, "required": true}]},
    {"id": "each", "type": "loop", "title": "Each name", "config": {"mode": "array", "collect": {"labels": {"node": "label", "path": "text"}}},
     "inputs": {"items": {"ref": {"node": "start", "path": "names"}}},
     "body": {
       "nodes": [
         {"id": "score", "type": "code", "config": {"code": "function main({ params }) { return { score: params.name.length * 10 }; }"},
          "inputs": {"name": {"ref": {"node": "each", "path": "item"}}}, "outputs": [{"name": "score", "type": "integer"}]},
         {"id": "check", "type": "condition", "config": {"branches": [{"port": "high", "conditions": [{"left": "s", "op": "gte", "value": 30}]}]},
          "inputs": {"s": {"ref": {"node": "score", "path": "score"}}}},
         {"id": "save", "type": "table_insert", "config": {"table_id": "TABLE"},
          "inputs": {"name": {"ref": {"node": "each", "path": "item"}}, "score": {"ref": {"node": "score", "path": "score"}}}},
         {"id": "high", "type": "text", "config": {"op": "template", "template": "{{n}} is high"}, "inputs": {"n": {"ref": {"node": "each", "path": "item"}}}},
         {"id": "low", "type": "text", "config": {"op": "template", "template": "{{n}} is low"}, "inputs": {"n": {"ref": {"node": "each", "path": "item"}}}},
         {"id": "label", "type": "variable_aggregate", "config": {"groups": {"text": ["h", "l"]}},
          "inputs": {"h": {"ref": {"node": "high", "path": "output"}}, "l": {"ref": {"node": "low", "path": "output"}}}}
       ],
       "edges": [
         {"from": "each", "to": "score"}, {"from": "score", "to": "check"},
         {"from": "check", "from_port": "high", "to": "save"}, {"from": "save", "to": "high"}, {"from": "check", "from_port": "else", "to": "low"},
         {"from": "high", "to": "label"}, {"from": "low", "to": "label"}
       ]
     }},
    {"id": "query", "type": "table_query", "config": {"table_id": "TABLE", "fields": ["name", "score"], "order_by": [{"field": "score", "desc": true}],
      "where": {"conditions": [{"field": "score", "op": "gte", "value": 30}]}}},
    {"id": "ask", "type": "llm", "title": "Summarize", "config": {"model_id": "fake", "prompt": "Summarize {{labels}}"},
     "inputs": {"labels": {"ref": {"node": "each", "path": "labels"}}}},
    {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{answer}} | best: {{best}} of {{n}}"},
     "inputs": {"answer": {"ref": {"node": "ask", "path": "output"}}, "best": {"ref": {"node": "query", "path": "rows.0.name"}},
                "n": {"ref": {"node": "query", "path": "row_count"}}}}
  ],
  "edges": [{"from": "start", "to": "each"}, {"from": "each", "to": "query"}, {"from": "query", "to": "ask"}, {"from": "ask", "to": "end"}]
}`

// everyNode is what the run history of scoringWorkflow lists.
var everyNode = []string{"ask", "each", "each/check", "each/high", "each/label", "each/low", "each/save", "each/score", "end", "query", "start"}

// TestWorkflowsThroughTheCozeAPI creates, validates, test-runs and
// publishes a workflow with a condition, a loop, a code node, an llm node
// and table nodes, runs it through /v1/workflow/run and
// /v1/workflow/stream_run, and reads both runs' history: every node is
// there. On SQLite and on MariaDB with Redis.
func TestWorkflowsThroughTheCozeAPI(t *testing.T) {
	for _, b := range tableBackends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			tbl := s.call(t, "POST", "/api/tables", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "scores", "mode": "shared",
				"fields": []map[string]any{{"name": "name", "type": "text"}, {"name": "score", "type": "integer"}}}).must(t, 201)
			def := json.RawMessage(strings.ReplaceAll(scoringWorkflow, "TABLE", str(tbl.data, "id")))

			created := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "scoring",
				"description": "scores names", "definition": def}).must(t, 201)
			id := str(created.data, "id")
			test := s.call(t, "POST", "/api/workflows/"+id+"/test_run", bootstrapToken, map[string]any{
				"parameters": map[string]any{"names": []string{"Ada"}}}).must(t, 200)
			if str(test.data, "status") != "success" || len(items(t, test.data, "nodes")) != 10 {
				t.Fatalf("test run = %v", test.data)
			}
			s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)

			// Synchronous: data is a JSON string; an End node answering
			// text gives Coze's answer object.
			run := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
				"parameters": map[string]any{"names": []string{"Ada", "Grace", "Bo"}}}).must(t, 200)
			data, _ := run.raw["data"].(string)
			var out map[string]any
			if err := json.Unmarshal([]byte(data), &out); err != nil {
				t.Fatalf("data = %q is not a JSON string of an object", run.raw["data"])
			}
			want := map[string]any{"content_type": 1.0, "type_for_model": 2.0,
				"data": "echo: Summarize [\"Ada is high\",\"Grace is high\",\"Bo is low\"] | best: Grace of 2"}
			if !cmp.Equal(out, want) {
				t.Fatalf("data differs (-want +got):\n%s", cmp.Diff(want, out))
			}
			hist := s.runHistory(t, id, str(run.raw, "execute_id"))
			statuses := nodeStatuses(t, hist)
			if got := slices.Sorted(maps.Keys(statuses)); !slices.Equal(got, everyNode) || str(hist, "execute_status") != "Success" {
				t.Fatalf("history lists %v (%s), want every node %v", got, str(hist, "execute_status"), everyNode)
			}
			if len(items(t, hist, "nodes")) != 1+1+5+5+4+3 || hist["usage"].(map[string]any)["token_count"].(float64) <= 0 {
				t.Fatalf("history nodes = %d, usage %v", len(items(t, hist, "nodes")), hist["usage"])
			}

			// Streamed: the end node's text comes in pieces, then Done.
			events := s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": map[string]any{"names": []string{"Lin"}}})
			text, pieces := messageText(events, "end")
			last := events[len(events)-1]
			if text != "echo: Summarize [\"Lin is high\"] | best: Grace of 3" || pieces < 3 || last.name != "Done" {
				t.Fatalf("stream: %q in %d pieces, ends with %s", text, pieces, last.name)
			}
			hist = s.runHistory(t, id, str(last.data, "execute_id"))
			if got := slices.Sorted(maps.Keys(nodeStatuses(t, hist))); len(got) != len(everyNode)-1 || hist["run_mode"].(float64) != 1 {
				t.Fatalf("streamed run's history lists %v, mode %v", got, hist["run_mode"]) // no low branch: Lin is high
			}

			// The test run wrote the draft rows, the runs the online rows.
			rows := s.call(t, "GET", "/api/tables/"+str(tbl.data, "id")+"/rows?order=asc", bootstrapToken, nil).must(t, 200)
			draft := s.call(t, "GET", "/api/tables/"+str(tbl.data, "id")+"/rows?data=draft", bootstrapToken, nil).must(t, 200)
			if n, d := len(items(t, rows.data, "items")), len(items(t, draft.data, "items")); n != 3 || d != 1 {
				t.Errorf("the table holds %d online and %d draft rows, want 3 and 1", n, d)
			}
			list := s.call(t, "GET", "/v1/workflows?workspace_id="+c.ws, bootstrapToken, nil).must(t, 200)
			if ws := items(t, list.data, "items"); len(ws) != 1 || str(ws[0], "workflow_name") != "scoring" || list.data["has_more"] != false {
				t.Errorf("list = %v", list.data)
			}
		})
	}
}
