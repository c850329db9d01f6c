package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// askingBatchCanvas is Coze's batch_with_inner_interrupt canvas with a
// fixed concurrency of 2: each item asks for a form (an input node), then
// a question naming the item and the form's answer; the batch collects
// the answers.
func askingBatchCanvas(t *testing.T) json.RawMessage {
	t.Helper()
	return askingBatch(t, czLit("integer", "2"), czLit("integer", "100"))
}

// askingBatch is askingBatchCanvas with the batch's concurrentSize and
// batchSize given; its Start also declares the integers batch_concurrency
// and batch_size, which they may read.
func askingBatch(t *testing.T, concurrentSize, batchSize cz) json.RawMessage {
	t.Helper()
	form := czNode("165663", "30", "Form", cz{"outputSchema": `[{"type":"string","name":"input","required":true}]`},
		cz{"name": "input", "type": "string", "required": true})
	ask := czNode("197297", "18", "Ask", cz{"answer_type": "text", "extra_output": false, "question": "{{arr_item}} {{user_input}}",
		"inputParameters": []cz{czParam("arr_item", czRef("163658", "input", "string")), czParam("user_input", czRef("165663", "input", "string"))}},
		cz{"name": "USER_RESPONSE", "type": "string", "required": true})
	list := func(node, name string) cz {
		in := czRef(node, name, "list")
		in["schema"] = cz{"type": "string"}
		return in
	}
	batch := czNode("163658", "28", "Batch", cz{"batchSize": batchSize, "concurrentSize": concurrentSize,
		"inputParameters": []cz{czParam("input", list("100001", "input_array"))}},
		czParam("USER_RESPONSE_list", list("197297", "USER_RESPONSE")))
	batch["blocks"] = []cz{form, ask}
	batch["edges"] = []cz{czEdge("163658", "165663", "batch-function-inline-output"), czEdge("165663", "197297"),
		{"sourceNodeID": "197297", "targetNodeID": "163658", "targetPortID": "batch-function-inline-input"}}
	start := czStart(cz{"name": "input_array", "type": "list", "required": true, "schema": cz{"type": "string"}},
		czOut("batch_concurrency", "integer"), czOut("batch_size", "integer"))
	end := czEnd(czParam("output", list("163658", "USER_RESPONSE_list")))
	return czCanvas(t, []cz{start, batch, end}, czEdge("100001", "163658"), czEdge("163658", "900001", "batch-output"))
}

// TestCozeBatchItemsAskSideBySide: a batch of concurrency 2 whose items
// each ask for a form and then a question pauses both running items at
// their forms before any question (input, input, question, question, as
// Coze does); an answer resumes its own item; the third item starts when
// the first finishes. Started by stream_run and by the synchronous run,
// resumed by stream_resume, alternately on two servers sharing MariaDB
// and Redis.
func TestCozeBatchItemsAskSideBySide(t *testing.T) {
	want := []string{"form", "form", "a A", "b B", "form", "c C"}
	answers := []string{`{"input": "A"}`, `{"input": "B"}`, "x", "y", `{"input": "C"}`, "z"}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			servers := []*testServer{startServer(t, env)}
			if b.name != "sqlite" {
				servers = append(servers, startServer(t, env))
			}
			s := servers[0]
			ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
			r := s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": ws, "name": "asking_batch",
				"canvas": askingBatchCanvas(t)}).must(t, 201)
			id := str(r.data["workflow"].(map[string]any), "id")
			s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
			params := cz{"input_array": []string{"a", "b", "c"}}

			for _, sync := range []bool{false, true} {
				asked, events := askThrough(t, servers, id, params, sync, answers)
				if !cmp.Equal(asked, want) {
					t.Fatalf("sync %v: asked (-want +got):\n%s", sync, cmp.Diff(want, asked))
				}
				out := cz{"output": []any{"x", "y", "z"}}
				if got := streamedOutput(t, events); !cmp.Equal(got, out) {
					t.Fatalf("sync %v: output (-want +got):\n%s", sync, cmp.Diff(out, got))
				}
				exec := str(events[len(events)-1].data, "execute_id")
				if h := s.runHistory(t, id, exec); str(h, "execute_status") != "Success" {
					t.Fatalf("sync %v: run %s is %s", sync, exec, str(h, "execute_status"))
				}
			}
		})
	}
}

// TestCozeBatchSizesFromVariables: a batch whose concurrentSize and
// batchSize read the Start's integers (Coze's batch_with_inner_interrupt
// reads its concurrentSize so) runs that many items at once and that many
// items at all: concurrency 1 asks each item's form and question in turn,
// 2 asks two forms first; a batch size of 2 leaves the third item out.
// Run and stream_run, resumed by stream_resume.
func TestCozeBatchSizesFromVariables(t *testing.T) {
	one := []string{`{"input": "A"}`, "x", `{"input": "B"}`, "y", `{"input": "C"}`, "z"}
	two := []string{`{"input": "A"}`, `{"input": "B"}`, "x", "y", `{"input": "C"}`, "z"}
	cases := []struct {
		name    string
		params  cz
		answers []string
		asked   []string
		out     []any
	}{
		{"concurrency 1", cz{"batch_concurrency": 1}, one, []string{"form", "a A", "form", "b B", "form", "c C"}, []any{"x", "y", "z"}},
		{"concurrency 2", cz{"batch_concurrency": 2}, two, []string{"form", "form", "a A", "b B", "form", "c C"}, []any{"x", "y", "z"}},
		{"batch size 2", cz{"batch_concurrency": 1, "batch_size": 2}, one[:4], []string{"form", "a A", "form", "b B"}, []any{"x", "y"}},
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.importPublished(t, "sized_batch", askingBatch(t, czRef("100001", "batch_concurrency", "integer"),
				czRef("100001", "batch_size", "integer")), nil)
			for _, tc := range cases {
				tc.params["input_array"] = []string{"a", "b", "c"}
				for _, sync := range []bool{false, true} {
					asked, events := askThrough(t, []*testServer{c.s}, id, tc.params, sync, tc.answers)
					if !cmp.Equal(asked, tc.asked) {
						t.Errorf("%s, sync %v: asked (-want +got):\n%s", tc.name, sync, cmp.Diff(tc.asked, asked))
					}
					if got, want := streamedOutput(t, events), (cz{"output": tc.out}); !cmp.Equal(got, want) {
						t.Errorf("%s, sync %v: output (-want +got):\n%s", tc.name, sync, cmp.Diff(want, got))
					}
				}
			}
		})
	}
}

// askThrough starts workflow id with params (by /v1/workflow/run when
// sync, else stream_run), answers what it asks with answers in turn
// through stream_resume, alternately on the servers, and returns what it
// asked and the events of the last resume, after which it must ask no
// more.
func askThrough(t *testing.T, servers []*testServer, id string, params cz, sync bool, answers []string) ([]string, []wfEvent) {
	t.Helper()
	s := servers[0]
	var in map[string]any
	if sync {
		run := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "parameters": params}).must(t, 200)
		in, _ = run.raw["interrupt_data"].(map[string]any)
	} else {
		in = streamInterrupt(t, s.workflowStream(t, cz{"workflow_id": id, "parameters": params}))
	}
	var asked []string
	var events []wfEvent
	for i, answer := range answers {
		if in == nil {
			t.Fatalf("sync %v: the run stopped asking after %v", sync, asked)
		}
		asked = append(asked, askedLabel(in))
		events = servers[i%len(servers)].postStream(t, "/v1/workflow/stream_resume", cz{"workflow_id": id,
			"event_id": str(in, "event_id"), "resume_data": answer, "interrupt_type": in["type"]})
		in = streamInterrupt(t, events)
	}
	if in != nil {
		t.Fatalf("sync %v: the run asks again after %v: %v", sync, asked, in)
	}
	return asked, events
}

// streamInterrupt is the interrupt_data a stream stopped on, or nil when
// it ran to its end.
func streamInterrupt(t *testing.T, events []wfEvent) map[string]any {
	t.Helper()
	n := len(events)
	if n < 2 || events[n-1].name != "Done" {
		t.Fatalf("stream does not end with Done: %v", events)
	}
	if events[n-2].name != "Interrupt" {
		return nil
	}
	in, _ := events[n-2].data["interrupt_data"].(map[string]any)
	return in
}

// askedLabel is "form" for an input node's interrupt (type 5), else the
// question.
func askedLabel(in map[string]any) string {
	if in["type"] == float64(5) {
		return "form"
	}
	return strings.TrimSpace(str(in, "question"))
}
