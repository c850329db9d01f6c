// Command cozesurvey imports every Coze Studio canvas (*.json) under a
// directory the way POST /api/workflows/import does, converting it and
// validating the result with the workflow engine (sub-workflows, plugins
// and tables are not resolved: those a user maps at import), and prints
// what became of each canvas and a summary by reason.
//
//	go run ./scripts/cozesurvey DIR
package main

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/cozeimport"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cozesurvey DIR")
		os.Exit(2)
	}
	files, err := canvases(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	eng := workflow.New(workflow.Config{})
	reasons := map[string]int{}
	imported := 0
	for _, f := range files {
		outcome, reason := survey(eng, f)
		rel, _ := filepath.Rel(os.Args[1], f)
		fmt.Printf("%-9s %s%s\n", outcome, rel, reason)
		if outcome == "imported" {
			imported++
		} else {
			reasons[outcome]++
		}
	}
	fmt.Printf("\n%d of %d canvases import\n", imported, len(files))
	for _, k := range slices.Sorted(maps.Keys(reasons)) {
		fmt.Printf("%4d %s\n", reasons[k], k)
	}
}

// canvases lists the JSON files under dir, sorted.
func canvases(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			out = append(out, p)
		}
		return err
	})
	slices.Sort(out)
	return out, err
}

// survey imports one canvas: imported, refused (unsupported nodes),
// malformed (the converter's error) or invalid (the engine's).
func survey(eng *workflow.Engine, path string) (string, string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unreadable", ": " + err.Error()
	}
	res, err := cozeimport.Convert(b, cozeimport.Options{DefaultModelID: "fake"})
	if err != nil {
		return "malformed", ": " + err.Error()
	}
	if len(res.Report.Unsupported) > 0 {
		return "refused", ": " + res.Report.UnsupportedText()
	}
	if err := eng.Validate(context.Background(), res.Definition, workflow.CompileOptions{}); err != nil {
		return "invalid", ": " + err.Error()
	}
	return "imported", ""
}
