package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/workflow/pyrun"
)

// pythonDef is start (n), a Python code node with CODE declaring count
// (integer) and list (array of integers), and end. COMPAT is the
// definition's compat ("" or "coze").
const pythonDef = `{"compat": "COMPAT", "nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "n", "type": "integer"}]},
  {"id": "py", "type": "code", "config": {"language": "python", "code": CODE}, "settings": {"timeout_ms": 700},
   "inputs": {"n": {"ref": {"node": "start", "path": "n"}}},
   "outputs": [{"name": "count", "type": "integer"}, {"name": "list", "type": "array", "items": {"type": "integer"}}]},
  {"id": "end", "type": "end", "inputs": {"count": {"ref": {"node": "py", "path": "count"}}, "list": {"ref": {"node": "py", "path": "list"}}}}],
 "edges": [{"from": "start", "to": "py"}, {"from": "py", "to": "end"}]}`

func pythonEngine(t *testing.T) *Engine {
	t.Helper()
	r, err := pyrun.New(pyrun.Config{})
	if errors.Is(err, pyrun.ErrUnavailable) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return New(Config{Python: r})
}

// runPython compiles and runs pythonDef with code and n.
func runPython(t *testing.T, eng *Engine, compat, code string, n int) (map[string]any, error) {
	t.Helper()
	quoted, _ := json.Marshal(code)
	src := strings.NewReplacer("COMPAT", compat, "CODE", string(quoted)).Replace(pythonDef)
	def, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := eng.Compile(ctx, compat+code, def, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		return nil, err
	}
	res, err := eng.Run(ctx, c, RunInput{RunID: 1, Params: map[string]any{"n": n}, Scope: Scope{WorkspaceID: 1, WorkflowID: 1}})
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}

// TestPythonNodeOutputs: main's dict becomes the node's outputs, typed;
// with Coze's conversions, text converts to the declared types.
func TestPythonNodeOutputs(t *testing.T) {
	eng := pythonEngine(t)
	out, err := runPython(t, eng, "", "def main(args):\n    return {'count': args.params['n'] + 1, 'list': [1, 2]}\n", 4)
	if err != nil || !cmp.Equal(jsonRoundTrip(t, out), jsonRoundTrip(t, map[string]any{"count": 5, "list": []any{1, 2}})) {
		t.Fatalf("native run: %v %v", out, err)
	}
	out, err = runPython(t, eng, "coze", "async def main(args):\n    return {'count': str(args.params['n']), 'list': '[3, 4]'}\n", 12)
	if err != nil || !cmp.Equal(jsonRoundTrip(t, out), jsonRoundTrip(t, map[string]any{"count": 12, "list": []any{3, 4}})) {
		t.Fatalf("coze run: %v %v", out, err)
	}
}

// TestPythonNodeFailures: what the code does wrong fails the run saying
// what; no runner fails validation saying how to enable Python.
func TestPythonNodeFailures(t *testing.T) {
	eng := pythonEngine(t)
	cases := map[string]string{
		"def main(args):\n    return [1]\n":                "main returned array, not a dict with the outputs",
		"def main(args):\n    while True:\n        pass\n": "the Python code ran out of time (700ms)",
		"def helper(args):\n    return {}\n":               "the code defines no function main(args)",
		"def main(args):\n    return {'count': 1\n":        "nodes[py].config.code: line 2: SyntaxError",
	}
	for code, want := range cases {
		if _, err := runPython(t, eng, "", code, 1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", code, err, want)
		}
	}
	_, err := runPython(t, New(Config{}), "", "def main(args):\n    return {}\n", 1)
	if err == nil || !strings.Contains(err.Error(), "nodes[py].config.language: Python code nodes need python3 and bubblewrap") {
		t.Fatalf("without a runner: %v", err)
	}
}
