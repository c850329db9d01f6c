package cozeimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/pyrun"
)

var update = flag.Bool("update", false, "rewrite the golden conversions in testdata")

// goldenOptions map the ids the test canvases use.
func goldenOptions() Options {
	return Options{Models: map[string]string{"1001": "fake"}, Tables: map[string]int64{"7001": 42},
		Plugins: map[string]int64{"5001": 7}, Knowledge: map[string]int64{"7480093452068470793": 5, "7480093452068438025": 6,
			"7519861718982361099": 5, "7548363002819379200": 5, "7512369185624686592": 5}}
}

// golden is what a canvas converts to.
type golden struct {
	Definition *workflow.Definition `json:"definition"`
	Report     Report               `json:"report"`
}

// TestGoldenCanvases converts every canvas of testdata and compares the
// definition and report with <name>.golden.json (go test -update rewrites
// them). A canvas without unsupported nodes must convert to a valid
// definition.
func TestGoldenCanvases(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	engine := workflow.New(workflow.Config{Python: compilingPython{}})
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Convert(data, goldenOptions())
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			got := golden{Definition: res.Definition, Report: res.Report}
			b, _ := json.MarshalIndent(got, "", " ")
			path := strings.TrimSuffix(f, ".json") + ".golden.json"
			if *update {
				if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no golden file (run go test -update): %v", err)
			}
			if diff := cmp.Diff(string(bytes.TrimSpace(want)), string(b)); diff != "" {
				t.Errorf("conversion differs from %s (-want +got):\n%s", path, diff)
			}
			if len(res.Report.Unsupported) == 0 {
				if err := engine.Validate(context.Background(), res.Definition, workflow.CompileOptions{}); err != nil {
					t.Errorf("the converted definition is invalid: %v", workflow.Problems(err))
				}
			}
		})
	}
}

// compilingPython accepts any Python at validation, as a server with
// python3 does for code that compiles; runs are not its business here.
type compilingPython struct{}

func (compilingPython) Check(context.Context, string) error { return nil }

func (compilingPython) Run(context.Context, string, map[string]any, time.Duration) (pyrun.Result, error) {
	return pyrun.Result{}, errors.New("not run in these tests")
}
