package main

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/workflow/pyrun"
)

// needPython skips when the machine has no python3 or bwrap, outside CI
// only (scripts/services.sh installs both).
func needPython(t *testing.T) {
	t.Helper()
	r, err := pyrun.New(pyrun.Config{})
	if errors.Is(err, pyrun.ErrUnavailable) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// pythonWorkflow is start (text, n), a Python code node in Coze's style
// running CODE, and end.
func pythonWorkflow(code string) string {
	c, _ := json.Marshal(code)
	return `{"nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "text", "type": "string"}, {"name": "n", "type": "integer"}]},
    {"id": "py", "type": "code", "config": {"language": "python", "code": ` + string(c) + `},
     "inputs": {"text": {"ref": {"node": "start", "path": "text"}}, "n": {"ref": {"node": "start", "path": "n"}}},
     "outputs": [{"name": "words", "type": "array", "items": {"type": "string"}}, {"name": "total", "type": "integer"},
                 {"name": "digest", "type": "string"}]},
    {"id": "end", "type": "end", "inputs": {"words": {"ref": {"node": "py", "path": "words"}},
     "total": {"ref": {"node": "py", "path": "total"}}, "digest": {"ref": {"node": "py", "path": "digest"}}}}],
  "edges": [{"from": "start", "to": "py"}, {"from": "py", "to": "end"}]}`
}

const pythonCode = `import hashlib, asyncio

async def main(args: Args) -> Output:
    params = args.params
    words = params["text"].split()
    await asyncio.sleep(0)
    print("split into", len(words), "words")
    return {"words": sorted(words), "total": len(words) * params["n"],
            "digest": hashlib.sha256(params["text"].encode()).hexdigest()[:12]}
`

// TestPythonCodeNodes: a native workflow with a Python code node runs
// through /v1/workflow/run and /v1/workflow/stream_run on SQLite and
// MariaDB; what it prints is in the node's logs; an exception fails the
// run naming its line; a syntax error is a 400 naming the node and line,
// and nothing is created.
func TestPythonCodeNodes(t *testing.T) {
	needPython(t)
	want := map[string]any{"words": []any{"green", "pear", "ripe"}, "total": 9.0, "digest": "06ef66f6932c"}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			id := createPublished(t, s, c.ws, "python", pythonWorkflow(pythonCode))
			params := map[string]any{"text": "ripe green pear", "n": 3}
			if got := c.runOutput(t, id, params); !cmp.Equal(got, want) {
				t.Errorf("run output differs (-want +got):\n%s", cmp.Diff(want, got))
			}
			if got := streamedOutput(t, s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": params})); !cmp.Equal(got, want) {
				t.Errorf("streamed output differs (-want +got):\n%s", cmp.Diff(want, got))
			}
			test := s.call(t, "POST", "/api/workflows/"+id+"/test_run", bootstrapToken, map[string]any{"parameters": params}).must(t, 200)
			for _, n := range items(t, test.data, "nodes") {
				if str(n, "node_id") == "py" && str(n, "logs") != "split into 3 words\n" {
					t.Errorf("the Python node's logs = %q", str(n, "logs"))
				}
			}

			failing := createPublished(t, s, c.ws, "failing", pythonWorkflow("def main(args):\n    x = 1\n    return {'total': x / 0}\n"))
			failed := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": failing, "parameters": params})
			failed.fails(t, 400, 4000, "line 3: ZeroDivisionError: division by zero")

			bad := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "bad",
				"definition": json.RawMessage(pythonWorkflow("def main(args):\n    return {'total': (1,\n"))})
			bad.fails(t, 400, 4000, "nodes[py].config.code: line 2: SyntaxError")
			list := s.call(t, "GET", "/v1/workflows?workspace_id="+c.ws, bootstrapToken, nil).must(t, 200)
			for _, w := range items(t, list.data, "items") {
				if str(w, "workflow_name") == "bad" {
					t.Error("the workflow with the syntax error was created")
				}
			}
		})
	}
}

// TestPythonMissingTellsHowToEnable: on a server without python3 the
// server runs, and a Python code node fails validation saying how to
// enable Python.
func TestPythonMissingTellsHowToEnable(t *testing.T) {
	s := startServer(t, map[string]string{"PERGOLA_PYTHON": "/nonexistent/python3"})
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	r := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "py",
		"definition": json.RawMessage(pythonWorkflow(pythonCode))})
	r.fails(t, 400, 4000, "nodes[py].config.language: Python code nodes need python3 and bubblewrap (bwrap) on the server")
	if !strings.Contains(r.msg, "PERGOLA_PYTHON") {
		t.Fatalf("the message %q does not name PERGOLA_PYTHON", r.msg)
	}
}
