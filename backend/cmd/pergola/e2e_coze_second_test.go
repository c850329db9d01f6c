package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// czInput is a typed input reading output name of node.
func czTyped(node, name, typ string, extra cz) cz {
	in := czRef(node, name, typ)
	for k, v := range extra {
		in[k] = v
	}
	return in
}

// czSubWorkflow is a sub-workflow node (type 9) running Coze workflow
// flow in batch mode over items, with one input read from the item.
func czBatchedSubWorkflow(id, flow string, items cz, itemField string, outputs ...cz) cz {
	return czNode(id, "9", "Sub "+id, cz{
		"workflowId": flow, "workflowVersion": "v0.0.1",
		"batch": cz{"batchEnable": true, "batchSize": 100, "concurrentSize": 2,
			"inputLists": []cz{czParam("item1", items)}},
		"inputParameters": []cz{czParam("input", czRef(id, "item1"+itemField, "string"))},
	}, outputs...)
}

// TestCozeBatchOverSubWorkflow: a sub-workflow node in batch mode
// collects one output object per item in outputList, as Coze's batch
// does, sync and streamed.
func TestCozeBatchOverSubWorkflow(t *testing.T) {
	child := func(t *testing.T) []byte {
		end := czEnd(czParam("shout", czRef("100001", "input", "string")), czParam("size", czLit("integer", "2")))
		return czCanvas(t, []cz{czStart(czOut("input", "string")), end}, czEdge("100001", "900001"))
	}
	itemSchema := cz{"type": "object", "schema": []cz{czOut("shout", "string"), czOut("size", "integer")}}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			childID := c.importPublished(t, "child", child(t), nil)
			list := cz{"type": "list", "schema": cz{"type": "string"}}
			sub := czBatchedSubWorkflow("200", "7001", czTyped("100001", "words", "list", cz{"schema": cz{"type": "string"}}), "",
				cz{"name": "outputList", "type": "list", "schema": itemSchema})
			end := czEnd(czParam("all", czTyped("200", "outputList", "list", cz{"schema": itemSchema})))
			parent := czCanvas(t, []cz{czStart(cz{"name": "words", "type": "list", "schema": list["schema"]}), sub, end},
				czEdge("100001", "200"), czEdge("200", "900001"))
			id := c.importPublished(t, "parent", parent, map[string]string{"7001": childID})
			want := map[string]any{"all": []any{map[string]any{"shout": "a", "size": float64(2)}, map[string]any{"shout": "b", "size": float64(2)},
				map[string]any{"shout": "c", "size": float64(2)}}}
			params := map[string]any{"words": []any{"a", "b", "c"}}
			if got := c.runOutput(t, id, params); !cmp.Equal(got, want) {
				t.Errorf("sync (-want +got):\n%s", cmp.Diff(want, got))
			}
			if got := streamedOutput(t, c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": params})); !cmp.Equal(got, want) {
				t.Errorf("streamed (-want +got):\n%s", cmp.Diff(want, got))
			}

			// A child whose End answers text: each item's output is {output}.
			textEnd := czNode("900001", "2", "End", cz{"terminatePlan": "useAnswerContent",
				"inputParameters": []cz{czParam("w", czRef("100001", "input", "string"))},
				"content":         czLit("string", "say {{w}}")})
			textID := c.importPublished(t, "text_child", czCanvas(t, []cz{czStart(czOut("input", "string")), textEnd}, czEdge("100001", "900001")), nil)
			textItem := cz{"type": "object", "schema": []cz{czOut("output", "string")}}
			sub = czBatchedSubWorkflow("200", "7002", czTyped("100001", "words", "list", cz{"schema": cz{"type": "string"}}), "",
				cz{"name": "outputList", "type": "list", "schema": textItem})
			end = czEnd(czParam("all", czTyped("200", "outputList", "list", cz{"schema": textItem})))
			parent = czCanvas(t, []cz{czStart(cz{"name": "words", "type": "list", "schema": list["schema"]}), sub, end},
				czEdge("100001", "200"), czEdge("200", "900001"))
			id = c.importPublished(t, "text_parent", parent, map[string]string{"7002": textID})
			want = map[string]any{"all": []any{map[string]any{"output": "say a"}, map[string]any{"output": "say b"}}}
			params = map[string]any{"words": []any{"a", "b"}}
			if got := c.runOutput(t, id, params); !cmp.Equal(got, want) {
				t.Errorf("text child, sync (-want +got):\n%s", cmp.Diff(want, got))
			}
			if got := streamedOutput(t, c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": params})); !cmp.Equal(got, want) {
				t.Errorf("text child, streamed (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}

// TestCozeUnmappedWorkflowToolsUnderAllowPartial: an LLM node whose
// workflow tools name workflows neither imported nor mapped is refused
// naming the field, and with allow_partial kept without those tools (the
// mapped ones kept), listed in the report, as a sub-workflow node in the
// same case is kept as a placeholder; the kept workflow runs.
func TestCozeUnmappedWorkflowToolsUnderAllowPartial(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			canvas := json.RawMessage(llmWithWorkflowSkills(t))
			req := cz{"workspace_id": c.ws, "canvas": canvas, "mappings": cz{"models": map[string]string{"1001": "fake"}}}
			c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, req).fails(t, 400, 4000,
				`workflowList[0].workflow_id: (a type 3 node) runs Coze workflow "7001"`)
			req["allow_partial"] = true
			r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, req).must(t, 201)
			report, _ := r.data["report"].(map[string]any)
			needs, _ := report["needs_conversion"].([]any)
			if len(needs) != 1 || !strings.Contains(str(needs[0].(map[string]any), "reason"), "workflow tool 7003 is left out") {
				t.Fatalf("report = %v", report)
			}
			id := str(r.data["workflow"].(map[string]any), "id")
			c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
			c.llm.Reset()
			if out := c.runBoth(t, cz{"workflow_id": id, "parameters": cz{"q": "hi"}}); out["answer"] == nil {
				t.Fatalf("output = %v", out)
			}
			for _, req := range c.llm.Requests() {
				if len(req.Tools) != 0 {
					t.Fatalf("the model got tools %v", req.Tools)
				}
			}
		})
	}
}
