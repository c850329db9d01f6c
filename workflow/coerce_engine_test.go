package workflow

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// coerceDef is a workflow run with Coze's conversions: typed parameters
// with defaults, a code node returning values of the wrong types, an
// input node, and an end node whose inputs declare types.
const coerceDef = `{"compat": "coze", "nodes": [
  {"id": "start", "type": "start", "outputs": [
    {"name": "n", "type": "integer"}, {"name": "flag", "type": "boolean"},
    {"name": "tags", "type": "array", "items": {"type": "string"}, "default": ["t"]},
    {"name": "who", "type": "string", "default": "anon"}]},
  {"id": "code", "type": "code", "config": {"code": "function main({ params }) { return { count: '12', ratio: 'x', list: '[1,\"b\",3]', obj: '{\"k\": 5}', text: {a: params.n} }; }"},
   "inputs": {"n": {"ref": {"node": "start", "path": "n"}}},
   "outputs": [{"name": "count", "type": "integer"}, {"name": "ratio", "type": "number"},
     {"name": "list", "type": "array", "items": {"type": "integer"}},
     {"name": "obj", "type": "object", "properties": [{"name": "k", "type": "string"}, {"name": "gone", "type": "integer"}]},
     {"name": "text", "type": "string"}]},
  {"id": "form", "type": "input", "config": {"prompt": "More"}, "outputs": [{"name": "age", "type": "integer", "required": true}, {"name": "ok", "type": "boolean"}]},
  {"id": "end", "type": "end", "inputs": {
    "count": {"ref": {"node": "code", "path": "count"}}, "ratio": {"ref": {"node": "code", "path": "ratio"}},
    "list": {"ref": {"node": "code", "path": "list"}}, "obj": {"ref": {"node": "code", "path": "obj"}},
    "text": {"ref": {"node": "code", "path": "text"}}, "age": {"ref": {"node": "form", "path": "age"}},
    "ok": {"ref": {"node": "form", "path": "ok"}}, "flag": {"ref": {"node": "start", "path": "flag"}},
    "tags": {"ref": {"node": "start", "path": "tags"}}, "who": {"ref": {"node": "start", "path": "who"}},
    "n_text": {"type": "string", "ref": {"node": "start", "path": "n"}}}}
 ],
 "edges": [{"from": "start", "to": "code"}, {"from": "code", "to": "form"}, {"from": "form", "to": "end"}]}`

func TestCozeConversionsInARun(t *testing.T) {
	env := newGoldenEnv(t, &golden{}, goldenCase{})
	def, err := Parse([]byte(coerceDef))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := env.eng.Compile(ctx, "coerce", def, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	in := RunInput{RunID: 7, Params: map[string]any{"n": "7.5", "flag": "True", "tags": []any{}, "who": ""}, Scope: Scope{WorkspaceID: 1, WorkflowID: 1}}
	res, err := env.eng.Run(ctx, c, in)
	if err != nil || res.Interrupt == nil {
		t.Fatalf("run: %v %+v", err, res)
	}
	records := res.Nodes // the nodes before the form ran in the first run
	in.Resume = resumeFrom(t, res, `{"age": "41", "ok": "maybe", "extra": 1}`)
	if res, err = env.eng.Run(ctx, c, in); err != nil {
		t.Fatalf("resume: %v", err)
	}
	want := map[string]any{"count": 12, "ratio": nil, "list": []any{1, 3}, "obj": map[string]any{"k": "5", "gone": nil},
		"text": `{"a":null}`, "age": 41, "ok": nil, "flag": true, "tags": []any{"t"}, "who": "anon",
		"n_text": ""} // null read by an end node as a string: "", Coze's PreFillZero
	if diff := cmp.Diff(jsonRoundTrip(t, want), jsonRoundTrip(t, res.Output)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	logs := map[string]string{}
	for _, r := range append(records, res.Nodes...) {
		logs[r.NodeID] = r.Logs
	}
	for node, warn := range map[string]string{
		"start": `warning: n: cannot convert string "7.5" to integer`,
		"code":  `warning: output ratio: cannot convert string "x" to number`,
		"form":  `warning: output ok: cannot convert string "maybe" to boolean`,
	} {
		if !strings.Contains(logs[node], warn) {
			t.Errorf("%s logs = %q, want %q", node, logs[node], warn)
		}
	}
	if !strings.Contains(logs["code"], `warning: output list.1: cannot convert string "b" to integer`) {
		t.Errorf("code logs = %q", logs["code"])
	}
}

// A typed input of the wrong type is converted, with a warning in the
// node's logs, instead of failing the node.
func TestCozeTypedInputs(t *testing.T) {
	env := newGoldenEnv(t, &golden{}, goldenCase{})
	def, err := Parse([]byte(`{"compat": "coze", "nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "n", "type": "string"}, {"name": "o", "type": "string"}]},
  {"id": "end", "type": "end", "inputs": {"as_int": {"type": "integer", "ref": {"node": "start", "path": "n"}},
    "as_obj": {"type": "object", "ref": {"node": "start", "path": "o"}},
    "fields": {"object": {"k": {"type": "integer", "value": "x"}, "s": {"type": "string", "value": 5}}}}}],
 "edges": [{"from": "start", "to": "end"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := env.eng.Compile(ctx, "typed", def, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	res, err := env.eng.Run(ctx, c, RunInput{RunID: 8, Params: map[string]any{"n": "x9", "o": `{"a":[1]}`}, Scope: Scope{WorkspaceID: 1, WorkflowID: 1}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	// as_int: what cannot be converted is null, which an end node reads
	// as the type's zero value (Coze's PreFillZero); a field inside an
	// object stays null.
	if diff := cmp.Diff(jsonRoundTrip(t, map[string]any{"as_int": 0, "as_obj": map[string]any{"a": []any{1}},
		"fields": map[string]any{"k": nil, "s": "5"}}), jsonRoundTrip(t, res.Output)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	end := res.Nodes[len(res.Nodes)-1]
	if end.NodeID != "end" || !strings.Contains(end.Logs, `warning: input as_int: cannot convert string "x9" to integer`) ||
		!strings.Contains(end.Logs, `warning: input k: cannot convert string "x" to integer`) {
		t.Errorf("end record %s logs = %q", end.NodeID, end.Logs)
	}
}
