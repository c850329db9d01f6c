package workflow

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite idl/workflow-dsl.schema.json from the catalog")

const schemaFile = "../idl/workflow-dsl.schema.json"

// TestDSLSchemaFileIsCurrent keeps idl/workflow-dsl.schema.json equal to
// what the catalog describes; run with -update after changing a node type.
func TestDSLSchemaFileIsCurrent(t *testing.T) {
	b, err := json.MarshalIndent(NewCatalog().DSLSchema(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(schemaFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b) {
		t.Fatalf("%s is out of date; run go test ./workflow/ -run TestDSLSchemaFileIsCurrent -update", schemaFile)
	}
}

// TestGoldenDefinitionsMatchTheSchema checks every golden definition
// against the JSON Schema with Python's jsonschema, the reference
// validator, when the machine has it.
func TestGoldenDefinitionsMatchTheSchema(t *testing.T) {
	if exec.Command("python3", "-c", "import jsonschema").Run() != nil {
		t.Skip("python3 with jsonschema is not installed")
	}
	var defs []string
	for _, name := range goldenNames(t) {
		defs = append(defs, string(loadGolden(t, name).Definition))
	}
	list, _ := json.Marshal(defs)
	script := `
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema)
bad = 0
for i, d in enumerate(json.load(sys.stdin)):
    for e in v.iter_errors(json.loads(d)):
        bad += 1
        print(i, "/".join(map(str, e.absolute_path)), e.message[:200])
bad_defs = [{"nodes": [{"id": "a", "type": "nope"}], "edges": []},
            {"nodes": [{"id": "a", "type": "llm", "config": {"prompt": "x"}}], "edges": []},
            {"nodes": [{"id": "a", "type": "end", "inputs": {"x": {"value": 1, "variable": "v"}}}], "edges": []}]
for d in bad_defs:
    if not list(v.iter_errors(d)):
        bad += 1
        print("accepted", d)
sys.exit(1 if bad else 0)
`
	cmd := exec.Command("python3", "-c", script, filepath.Clean(schemaFile))
	cmd.Stdin = strings.NewReader(string(list))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("schema check failed: %v\n%s", err, out)
	}
}
