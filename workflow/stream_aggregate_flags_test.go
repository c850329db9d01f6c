package workflow

import (
	"errors"
	"strings"
	"testing"
)

// llmNode is an llm node prompting "<key> {{n}}"; settings may be empty.
func llmNode(id, key, settings string) string {
	s := `{"id": "` + id + `", "type": "llm", "config": {"model_id": "fake", "prompt": "` + key + ` {{n}}"},
   "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}`
	if settings != "" {
		s += `, "settings": ` + settings
	}
	return s + "}"
}

// flowDef joins nodes and edges after a start node with input n.
func flowDef(nodes []string, edges string) string {
	return `{"nodes": [{"id": "start", "type": "start", "outputs": [{"name": "n", "type": "integer"}]}, ` +
		strings.Join(nodes, ", ") + `], "edges": [` + edges + `]}`
}

const endOf = `{"id": "end", "type": "end", "config": {"mode": "text", "template": "<{{a}}>"}, "inputs": {"a": {"ref": {"node": "ask", "path": "output"}}}}`

// TestStreamFlags: a streamed end or message node sends its text in
// pieces, final on the last only, which carries text; a plain run sends
// it whole in one final piece.
func TestStreamFlags(t *testing.T) {
	msg := `{"id": "say", "type": "message", "config": {"template": "says {{a}}"}, "inputs": {"a": {"ref": {"node": "ask", "path": "output"}}}}`
	def := flowDef([]string{llmNode("ask", "q", ""), msg, endOf},
		`{"from": "start", "to": "ask"}, {"from": "ask", "to": "say"}, {"from": "say", "to": "end"}, {"from": "ask", "to": "end"}`)
	scripts := map[string]*streamScript{"q": {chunks: []string{"one ", "two ", "three"}}}
	for _, stream := range []bool{true, false} {
		log := &messageLog{}
		res, err := runScripted(t, def, scripts, map[string]any{"n": 1}, stream, log)
		if err != nil {
			t.Fatal(err)
		}
		min := map[bool]int{true: 3, false: 1}[stream]
		checkPieces(t, log.of("say"), min, "says one two three")
		checkPieces(t, log.of("end"), min, "<one two three>")
		if res.Text != "<one two three>" {
			t.Errorf("stream %v: text = %q", stream, res.Text)
		}
	}
}

// TestStreamTwoSources: an end node showing two llm nodes that run side
// by side streams both, in the template's order.
func TestStreamTwoSources(t *testing.T) {
	end := `{"id": "end", "type": "end", "config": {"mode": "text", "template": "{{a}}|{{b}}"},
   "inputs": {"a": {"ref": {"node": "x", "path": "output"}}, "b": {"ref": {"node": "y", "path": "output"}}}}`
	def := flowDef([]string{llmNode("x", "first", ""), llmNode("y", "second", ""), end},
		`{"from": "start", "to": "x"}, {"from": "start", "to": "y"}, {"from": "x", "to": "end"}, {"from": "y", "to": "end"}`)
	scripts := map[string]*streamScript{"first": {chunks: []string{"a", "b"}}, "second": {chunks: []string{"c", "d"}}}
	log := &messageLog{}
	res, err := runScripted(t, def, scripts, map[string]any{"n": 1}, true, log)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "ab|cd" {
		t.Errorf("text = %q", res.Text)
	}
	checkPieces(t, log.of("end"), 3, "ab|cd")
}

// TestStreamRetry: an llm node whose first attempt fails before it
// streamed anything streams its retry.
func TestStreamRetry(t *testing.T) {
	def := flowDef([]string{llmNode("ask", "q", `{"retries": 1, "retry_backoff_ms": 1}`), endOf},
		`{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}`)
	scripts := map[string]*streamScript{"q": {chunks: []string{"re", "tried"}, failFirst: 1}}
	log := &messageLog{}
	res, err := runScripted(t, def, scripts, map[string]any{"n": 1}, true, log)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "<retried>" {
		t.Errorf("text = %q", res.Text)
	}
	checkPieces(t, log.of("end"), 2, "<retried>")
}

// TestStreamFailsMidway: when the model fails mid-stream the pieces shown
// are never final and the run fails; with on_error default the end node
// goes on with the default, final on its last piece.
func TestStreamFailsMidway(t *testing.T) {
	scripts := map[string]*streamScript{"q": {chunks: []string{"hal", "f an"}, err: errors.New("connection reset")}}
	def := flowDef([]string{llmNode("ask", "q", ""), endOf}, `{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}`)
	log := &messageLog{}
	if _, err := runScripted(t, def, scripts, map[string]any{"n": 1}, true, log); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("run error = %v, want the model's", err)
	}
	for _, e := range log.of("end") {
		if e.Final {
			t.Errorf("a piece is final though the run failed: %+v", log.of("end"))
		}
	}
	def = flowDef([]string{llmNode("ask", "q", `{"on_error": "default", "default_output": {"output": "sorry"}}`), endOf},
		`{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}`)
	log = &messageLog{}
	res, err := runScripted(t, def, scripts, map[string]any{"n": 1}, true, log)
	if err != nil {
		t.Fatal(err)
	}
	checkPieces(t, log.of("end"), 2, res.Text)
	if !strings.HasSuffix(res.Text, "sorry>") {
		t.Errorf("text = %q, want the default shown", res.Text)
	}
}

// TestAggregateStreamOrder: the group's first input that ran wins, as in
// a plain run: a slower llm node listed first, a text node listed first,
// an llm node that did not run listed first.
func TestAggregateStreamOrder(t *testing.T) {
	text := `{"id": "t", "type": "text", "config": {"op": "template", "template": "fixed"}}`
	merge := func(group string) string {
		return `{"id": "merge", "type": "variable_aggregate", "config": {"groups": {"g": ` + group + `}},
   "inputs": {"x": {"ref": {"node": "x", "path": "output"}}, "y": {"ref": {"node": "y", "path": "output"}}, "t": {"ref": {"node": "t", "path": "output"}}}}`
	}
	end := `{"id": "end", "type": "end", "config": {"mode": "text", "template": "[{{g}}]"}, "inputs": {"g": {"ref": {"node": "merge", "path": "g"}}}}`
	side := `{"from": "start", "to": "x"}, {"from": "start", "to": "y"}, {"from": "start", "to": "t"},
  {"from": "x", "to": "merge"}, {"from": "y", "to": "merge"}, {"from": "t", "to": "merge"}, {"from": "merge", "to": "end"}`
	cond := `{"id": "c", "type": "condition", "config": {"branches": [{"port": "yes", "conditions": [{"left": "n", "op": "gt", "value": 5}]}]},
   "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}}`
	branch := `{"from": "start", "to": "c"}, {"from": "c", "from_port": "yes", "to": "x"}, {"from": "c", "from_port": "else", "to": "y"},
  {"from": "start", "to": "t"}, {"from": "x", "to": "merge"}, {"from": "y", "to": "merge"}, {"from": "t", "to": "merge"}, {"from": "merge", "to": "end"}`
	for _, tc := range []struct{ name, def, want string }{
		{"llm listed first", flowDef([]string{llmNode("x", "first", ""), llmNode("y", "second", ""), text, merge(`["x", "y", "t"]`), end}, side), "[abc]"},
		{"text listed first", flowDef([]string{llmNode("x", "first", ""), llmNode("y", "second", ""), text, merge(`["t", "y", "x"]`), end}, side), "[fixed]"},
		{"skipped llm first", flowDef([]string{cond, llmNode("x", "first", ""), llmNode("y", "second", ""), text, merge(`["x", "y", "t"]`), end}, branch), "[def]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scripts := map[string]*streamScript{"first": {chunks: []string{"a", "b", "c"}}, "second": {chunks: []string{"d", "e", "f"}}}
			log := &messageLog{}
			res, err := runScripted(t, tc.def, scripts, map[string]any{"n": 1}, true, log)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tc.want {
				t.Errorf("text = %q, want %q", res.Text, tc.want)
			}
			checkPieces(t, log.of("end"), 2, tc.want)
		})
	}
}

// TestStreamSubworkflowEnd: the end node of a sub-workflow returns its
// text to the calling node and shows no message, streamed or not.
func TestStreamSubworkflowEnd(t *testing.T) {
	sub := flowDef([]string{llmNode("ask", "q", ""), endOf}, `{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}`)
	def := flowDef([]string{`{"id": "call", "type": "sub_workflow", "config": {"workflow_id": "11", "version": 1},
   "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}}`,
		`{"id": "end", "type": "end", "config": {"mode": "text", "template": "P {{r}}"}, "inputs": {"r": {"ref": {"node": "call", "path": "output"}}}}`},
		`{"from": "start", "to": "call"}, {"from": "call", "to": "end"}`)
	loader := &fakeLoader{files: map[string]string{"11": "sub"}, load: func(string) (*Definition, error) { return Parse([]byte(sub)) }}
	scripts := map[string]*streamScript{"q": {chunks: []string{"a", "b", "c"}}}
	for _, stream := range []bool{true, false} {
		log := &messageLog{}
		res, err := runWith(t, Config{Workflows: loader}, def, scripts, map[string]any{"n": 1}, stream, log)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "P <abc>" {
			t.Errorf("stream %v: text = %q", stream, res.Text)
		}
		checkPieces(t, log.of("end"), 1, "P <abc>")
	}
}
