package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cozeInputRows are what an end node reads, declared as one type, from a
// value of another: Coze converts (nodes/convert.go) and then reads null
// as the declared type's zero value (the exit node's PreFillZero,
// compose/field_fill.go). One row per rule.
var cozeInputRows = []struct {
	name  string
	typ   string // the input's declared schema, as JSON
	given any    // absent when nil and missing is set
	miss  bool
	want  any
}{
	{"number into integer: truncated", `{"type":"integer"}`, 3.5, false, 3},
	{"text into integer: parsed", `{"type":"integer"}`, "7", false, 7},
	{"boolean into integer: null, read as 0", `{"type":"integer"}`, true, false, 0},
	{"missing integer: 0", `{"type":"integer"}`, nil, true, 0},
	{"integer into number", `{"type":"number"}`, 4, false, 4.0},
	{"missing number: 0", `{"type":"number"}`, nil, true, 0.0},
	{"text into boolean", `{"type":"boolean"}`, "true", false, true},
	{"text 2 into boolean: null, read as false", `{"type":"boolean"}`, "2", false, false},
	{"missing boolean: false", `{"type":"boolean"}`, nil, true, false},
	{"object into string: JSON text", `{"type":"string"}`, map[string]any{"a": 1}, false, `{"a":1}`},
	{"number into string", `{"type":"string"}`, 2.5, false, "2.5"},
	{"missing string: empty", `{"type":"string"}`, nil, true, ""},
	{"JSON text into object", `{"type":"object"}`, `{"a":1}`, false, map[string]any{"a": 1}},
	{"missing object: null", `{"type":"object"}`, nil, true, nil},
	{"JSON text into array", `{"type":"array","items":{"type":"integer"}}`, "[1,2]", false, []any{1, 2}},
	{"number into array: empty", `{"type":"array"}`, 5, false, []any{}},
	{"array elements: failed left out, null read as 0", `{"type":"array","items":{"type":"integer"}}`, []any{1, nil, "x"}, false, []any{1, 0}},
	{"missing array: null", `{"type":"array"}`, nil, true, nil},
	{"file: x-wf-file_name dropped", `{"type":"file"}`, "https://f.test/a.png?s=1&x-wf-file_name=a.png", false, "https://f.test/a.png?s=1"},
	{"file without a name kept", `{"type":"file"}`, "https://f.test/a.png?s=1", false, "https://f.test/a.png?s=1"},
}

// cozeInputsDef is a workflow whose end node reads each row's value from
// the untyped object parameter "in", declared as the row's type.
func cozeInputsDef(compat string) (*Definition, map[string]any) {
	inputs := map[string]json.RawMessage{}
	given := map[string]any{}
	for i, r := range cozeInputRows {
		key := fmt.Sprintf("r%d", i)
		typ := strings.TrimSuffix(r.typ, "}")
		inputs[key] = json.RawMessage(typ + `,"ref":{"node":"start","path":"in.` + key + `"}}`)
		if !r.miss {
			given[key] = r.given
		}
	}
	end, _ := json.Marshal(map[string]any{"id": "end", "type": "end", "inputs": inputs})
	text := `{"compat":"` + compat + `","nodes":[{"id":"start","type":"start","outputs":[{"name":"in","type":"object"}]},` +
		string(end) + `],"edges":[{"from":"start","to":"end"}]}`
	def, err := Parse([]byte(text))
	if err != nil {
		panic(err)
	}
	return def, given
}

func TestCozeConvertsTypedInputs(t *testing.T) {
	env := newGoldenEnv(t, &golden{}, goldenCase{})
	def, given := cozeInputsDef(CompatCoze)
	ctx := context.Background()
	c, err := env.eng.Compile(ctx, "inputs", def, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	res, err := env.eng.Run(ctx, c, RunInput{RunID: 9, Params: map[string]any{"in": given}, Scope: Scope{WorkspaceID: 1, WorkflowID: 1}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	got := jsonRoundTrip(t, res.Output).(map[string]any)
	for i, r := range cozeInputRows {
		key := fmt.Sprintf("r%d", i)
		want := r.want
		if want != nil {
			want = jsonRoundTrip(t, want)
		}
		if diff := cmp.Diff(want, got[key]); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", r.name, diff)
		}
	}
	end := res.Nodes[len(res.Nodes)-1]
	if !strings.Contains(end.Logs, `warning: input r7: cannot convert string "2" to boolean`) {
		t.Errorf("end logs = %q, want the boolean warning", end.Logs)
	}
}

// Native workflows keep the strict check: a typed input of another type
// fails the node.
func TestNativeTypedInputsAreNotConverted(t *testing.T) {
	env := newGoldenEnv(t, &golden{}, goldenCase{})
	def, given := cozeInputsDef("")
	ctx := context.Background()
	c, err := env.eng.Compile(ctx, "inputs", def, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	_, err = env.eng.Run(ctx, c, RunInput{RunID: 10, Params: map[string]any{"in": given}, Scope: Scope{WorkspaceID: 1, WorkflowID: 1}})
	if err == nil || !strings.Contains(err.Error(), "input r") {
		t.Fatalf("a native run converted inputs of other types: %v", err)
	}
}

// Start, condition, sub-workflow, input, aggregate and assign nodes read
// null as null (Coze's nodes without PreFillZero); the others read the
// zero value.
func TestCozeZeroFill(t *testing.T) {
	for _, typ := range []string{"start", "condition", "sub_workflow", "input", "variable_aggregate", "variable_assign"} {
		if fillsZero(typ) {
			t.Errorf("%s fills zero values", typ)
		}
	}
	for _, typ := range []string{"end", "llm", "code", "http", "text", "message", "plugin", "loop", "batch", "question", "intent"} {
		if !fillsZero(typ) {
			t.Errorf("%s does not fill zero values", typ)
		}
	}
	objs := ArrayOf(Schema{Type: TypeObject})
	if got := zeroFilled(objs, []any{nil}); !cmp.Equal(got, []any{nil}) {
		t.Errorf("null objects in an array = %v, want kept null", got)
	}
}

// Coze's x-wf-file_name is dropped from file URLs and its name noted for
// the run, so an HTTP node sending the file still names it.
func TestFileNamesStripped(t *testing.T) {
	var names fileNames
	cases := []struct{ in, want, name string }{
		{"https://f.test/a.pdf?x-wf-file_name=report%20v1.pdf", "https://f.test/a.pdf", "report v1.pdf"},
		{"https://f.test/a.pdf?sig=a%2Bb&x-wf-file_name=r.pdf&e=2", "https://f.test/a.pdf?sig=a%2Bb&e=2", "r.pdf"},
		{"https://f.test/a.pdf?sig=1", "https://f.test/a.pdf?sig=1", ""},
		{"not a url", "not a url", ""},
	}
	for _, tc := range cases {
		if got := names.stripURL(tc.in); got != tc.want {
			t.Errorf("stripURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := names.name(tc.want); got != tc.name {
			t.Errorf("name(%q) = %q, want %q", tc.want, got, tc.name)
		}
	}
	ctx := withFileNames(context.Background(), &names)
	if got := fileNameOf(ctx, "https://f.test/a.pdf"); got != "report v1.pdf" {
		t.Errorf("fileNameOf = %q", got)
	}
}
