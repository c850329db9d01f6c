package workflow

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// baseDefinition is a valid workflow the cases below break one way each.
const baseDefinition = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "q", "type": "string", "required": true}, {"name": "n", "type": "integer"}]},
    {"id": "ask", "type": "llm", "config": {"model_id": "fake", "prompt": "{{q}}"}, "inputs": {"q": {"ref": {"node": "start", "path": "q"}}}},
    {"id": "check", "type": "condition", "config": {"branches": [{"port": "long", "conditions": [{"left": "a", "op": "contains", "value": "x"}]}]},
     "inputs": {"a": {"ref": {"node": "ask", "path": "output"}}}},
    {"id": "yes", "type": "text", "config": {"op": "template", "template": "yes"}},
    {"id": "no", "type": "text", "config": {"op": "template", "template": "no"}},
    {"id": "end", "type": "end", "inputs": {"a": {"ref": {"node": "ask", "path": "output"}}}}
  ],
  "edges": [
    {"from": "start", "to": "ask"}, {"from": "ask", "to": "check"},
    {"from": "check", "from_port": "long", "to": "yes"}, {"from": "check", "from_port": "else", "to": "no"},
    {"from": "yes", "to": "end"}, {"from": "no", "to": "end"}
  ]
}`

func TestValidateReportsNodeAndField(t *testing.T) {
	cases := []struct {
		name        string
		from, to    string // replace from with to in baseDefinition
		field, text string
	}{
		{"unknown type", `"type": "llm"`, `"type": "lmm"`, "nodes[ask].type", `unknown node type "lmm"`},
		{"missing required config", `"model_id": "fake", `, ``, "nodes[ask].config.model_id", "is required"},
		{"backup model without retries", `"model_id": "fake", `, `"model_id": "fake", "backup_model_id": "spare", `,
			"nodes[ask].config.backup_model_id", "is called on retries: set settings.retries"},
		{"too many history rounds", `"model_id": "fake", `, `"model_id": "fake", "chat_history_rounds": 51, `,
			"nodes[ask].config.chat_history_rounds", "must be between 0 (no history) and 50"},
		{"unknown config field", `"prompt": "{{q}}"}`, `"prompt": "{{q}}", "temp": 1}`, "nodes[ask].config", `unknown field "temp"`},
		{"template names no input", `"prompt": "{{q}}"`, `"prompt": "{{question}}"`, "nodes[ask].config.prompt", `{{question}} names no input`},
		{"dangling edge", `{"from": "ask", "to": "check"}`, `{"from": "ask", "to": "chek"}`, "edges[1].to", `names no node of this graph: "chek"`},
		{"unknown port", `"from_port": "long"`, `"from_port": "short"`, "edges[2].from_port", `node check has no port "short"`},
		{"port missing", `"from_port": "else", `, ``, "edges[3].from_port", "is required: node check branches"},
		{"port not connected", `, {"from": "check", "from_port": "else", "to": "no"}`, ``, "nodes[check].ports.else", `port "else" is not connected`},
		{"cycle", `{"from": "no", "to": "end"}`, `{"from": "no", "to": "end"}, {"from": "no", "to": "ask"}`, "edges", "cycle through ask, check, no"},
		{"unreachable", `{"from": "start", "to": "ask"}, `, ``, "nodes[ask]", "is unreachable"},
		{"dead end", `{"from": "yes", "to": "end"}, `, ``, "nodes[yes]", "never leads to the end node"},
		{"reference to a missing node", `"type": "end", "inputs": {"a": {"ref": {"node": "ask"`, `"type": "end", "inputs": {"a": {"ref": {"node": "asked"`, "nodes[end].inputs.a.ref", `no node "asked"`},
		{"reference to a missing output", `{"node": "start", "path": "q"}`, `{"node": "start", "path": "query"}`, "nodes[ask].inputs.q.ref", `start.query: no output "query"`},
		{"reference into a scalar", `{"node": "start", "path": "q"}`, `{"node": "start", "path": "q.x"}`, "nodes[ask].inputs.q.ref", `a string has no "x"`},
		{"reference to a later node", `"inputs": {"q": {"ref": {"node": "start", "path": "q"}}}`, `"inputs": {"q": {"ref": {"node": "end", "path": "a"}}}`, "nodes[ask].inputs.q.ref", "node end does not run before ask"},
		{"type mismatch of a reference", `{"left": "a", "op": "contains", "value": "x"}`, `{"left": "a", "op": "gt", "value": 3}`, "nodes[check].config.branches[0].conditions[0].op", "gt cannot compare input a, a string"},
		{"declared type mismatch", `"inputs": {"q": {"ref": {"node": "start", "path": "q"}}}`, `"inputs": {"q": {"type": "integer", "ref": {"node": "start", "path": "q"}}}`, "nodes[ask].inputs.q", "is declared integer but is start.q, a string"},
		{"two sources", `{"ref": {"node": "start", "path": "q"}}`, `{"value": 1, "ref": {"node": "start", "path": "q"}}`, "nodes[ask].inputs.q", "exactly one of value, ref, variable, template and object"},
		{"duplicate id", `{"id": "no", "type": "text"`, `{"id": "yes", "type": "text"`, "nodes[yes].id", "is used by two nodes"},
		{"no end", `{"id": "end", "type": "end"`, `{"id": "end", "type": "message", "config": {"template": "x"}`, "nodes", "there is no end node"},
		{"bad settings", `{"id": "no", "type": "text",`, `{"id": "no", "type": "text", "settings": {"on_error": "ignore"},`, "nodes[no].settings.on_error", "must be fail, default or branch"},
		{"default output not an output", `{"id": "no", "type": "text",`, `{"id": "no", "type": "text", "settings": {"on_error": "default", "default_output": {"x": 1}},`, "nodes[no].settings.default_output.x", "is not an output"},
		{"error port without branch", `{"from": "no", "to": "end"}`, `{"from": "no", "to": "end"}, {"from": "no", "from_port": "error", "to": "end"}`, "edges[6].from_port", `node no has no port "error"`},
		{"bad output type", `{"name": "n", "type": "integer"}`, `{"name": "n", "type": "int"}`, "nodes[start].outputs[1].type", `unknown type "int"`},
		{"break outside a loop", `{"id": "no", "type": "text", "config": {"op": "template", "template": "no"}}`, `{"id": "no", "type": "break"}`, "nodes[no].type", "belongs in the body of a loop node"},
	}
	eng := New(Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(baseDefinition, tc.from, tc.to, 1)
			if src == baseDefinition {
				t.Fatalf("the case changes nothing: %q not found", tc.from)
			}
			def, err := Parse([]byte(src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = eng.Validate(context.Background(), def, CompileOptions{})
			if !errors.Is(err, errs.ErrInvalid) {
				t.Fatalf("Validate = %v, want an invalid definition", err)
			}
			for _, p := range Problems(err) {
				if p.Field == tc.field && strings.Contains(p.Reason, tc.text) {
					return
				}
			}
			t.Errorf("no problem %s: …%s…; got:\n%s", tc.field, tc.text, describeProblems(err))
		})
	}
}

func describeProblems(err error) string {
	var b strings.Builder
	for _, p := range Problems(err) {
		b.WriteString("  " + p.Error() + "\n")
	}
	return b.String()
}

func TestValidateBaseDefinition(t *testing.T) {
	def, err := Parse([]byte(baseDefinition))
	if err != nil {
		t.Fatal(err)
	}
	if err := New(Config{}).Validate(context.Background(), def, CompileOptions{}); err != nil {
		t.Fatalf("the base definition is invalid:\n%s", describeProblems(err))
	}
}

func TestValidateLoops(t *testing.T) {
	cases := []struct{ name, def, field, text string }{
		{"infinite loop without break", `{"nodes": [{"id": "start", "type": "start"},
			{"id": "l", "type": "loop", "config": {"mode": "infinite"}, "body": {"nodes": [{"id": "t", "type": "text", "config": {"op": "template", "template": "x"}}], "edges": [{"from": "l", "to": "t"}]}},
			{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "l"}, {"from": "l", "to": "end"}]}`,
			"nodes[l].body", "an infinite loop needs a break node"},
		{"body without entry", `{"nodes": [{"id": "start", "type": "start"},
			{"id": "l", "type": "loop", "config": {"mode": "count"}, "inputs": {"count": {"value": 2}}, "body": {"nodes": [{"id": "t", "type": "text", "config": {"op": "template", "template": "x"}}], "edges": []}},
			{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "l"}, {"from": "l", "to": "end"}]}`,
			"nodes[l].body.edges", "no edge starts the iteration"},
		{"items not an array", `{"nodes": [{"id": "start", "type": "start", "outputs": [{"name": "s", "type": "string"}]},
			{"id": "l", "type": "loop", "config": {"mode": "array"}, "inputs": {"items": {"ref": {"node": "start", "path": "s"}}}, "body": {"nodes": [{"id": "t", "type": "text", "config": {"op": "template", "template": "x"}}], "edges": [{"from": "l", "to": "t"}]}},
			{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "l"}, {"from": "l", "to": "end"}]}`,
			"nodes[l].inputs.items", "is start.s, a string, but a loop node needs array here"},
		{"body node read from outside", `{"nodes": [{"id": "start", "type": "start"},
			{"id": "l", "type": "loop", "config": {"mode": "count"}, "inputs": {"count": {"value": 2}}, "body": {"nodes": [{"id": "t", "type": "text", "config": {"op": "template", "template": "x"}}], "edges": [{"from": "l", "to": "t"}]}},
			{"id": "end", "type": "end", "inputs": {"x": {"ref": {"node": "t", "path": "output"}}}}], "edges": [{"from": "start", "to": "l"}, {"from": "l", "to": "end"}]}`,
			"nodes[end].inputs.x.ref", "node t is inside the body of l"},
		{"set_variable of an unknown variable", `{"nodes": [{"id": "start", "type": "start"},
			{"id": "l", "type": "loop", "config": {"mode": "count"}, "inputs": {"count": {"value": 2}, "total": {"value": 0}}, "body": {"nodes": [{"id": "s", "type": "set_variable", "inputs": {"totl": {"value": 1}}}], "edges": [{"from": "l", "to": "s"}]}},
			{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "l"}, {"from": "l", "to": "end"}]}`,
			"nodes[s].inputs.totl", "is not a variable of loop l"},
		{"break with a successor", `{"nodes": [{"id": "start", "type": "start"},
			{"id": "l", "type": "loop", "config": {"mode": "infinite"}, "body": {"nodes": [{"id": "b", "type": "break"}, {"id": "t", "type": "text", "config": {"op": "template", "template": "x"}}], "edges": [{"from": "l", "to": "b"}, {"from": "b", "to": "t"}]}},
			{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "l"}, {"from": "l", "to": "end"}]}`,
			"nodes[b]", "a break node ends the iteration; it cannot have outgoing edges"},
	}
	eng := New(Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def, err := Parse([]byte(tc.def))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = eng.Validate(context.Background(), def, CompileOptions{})
			for _, p := range Problems(err) {
				if p.Field == tc.field && strings.Contains(p.Reason, tc.text) {
					return
				}
			}
			t.Errorf("no problem %s: …%s…; got:\n%s", tc.field, tc.text, describeProblems(err))
		})
	}
}

func TestParse(t *testing.T) {
	yaml := `
nodes:
  - id: start
    type: start
    outputs: [{name: q, type: string}]
  - id: end
    type: end
    inputs:
      q: {ref: {node: start, path: q}}
      n: {value: 3}
      off: {value: null}
edges:
  - {from: start, to: end}
`
	def, err := Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	if in := def.Nodes[1].Inputs; in["n"].Value != int64(3) || !in["off"].HasValue || in["off"].Value != nil {
		t.Fatalf("inputs = %+v", in)
	}
	b, err := def.Marshal()
	if err != nil || !strings.Contains(string(b), `"off":{"value":null}`) {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	if _, err := Parse(b); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	for src, want := range map[string]string{
		``:                          "definition: is empty",
		`{"nodes": [], "edgs": []}`: `unknown field "edgs"`,
		`{"nodes": 3}`:              "nodes must not be number",
		"nodes: [\n  - a\n b":       "is neither JSON nor valid YAML",
		`{"nodes": []} {}`:          "has text after the JSON object",
	} {
		if _, err := Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, errs.ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want %q", src, err, want)
		}
	}
}
