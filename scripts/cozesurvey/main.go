// Command cozesurvey imports every Coze Studio canvas (*.json, *.flow)
// under a directory the way POST /api/workflows/import does: it converts
// the canvas and validates the result with the workflow engine, Python
// enabled when this machine can run it. The workflows a canvas runs
// (sub-workflow nodes, workflow skills) are mapped as a manifest would
// map them (mappings.workflows): canvases of the directory that declare
// their Coze id (a .flow export) by that id, any other id to a stand-in
// published workflow. Plugins and tables keep their Coze ids, as an import
// without plugin or table mappings does. It prints what became of each
// canvas (imported, or refused with each node's id, type and reason) and
// the number of canvases per reason.
//
//	go run ./scripts/cozesurvey DIR
package main

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/pyrun"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cozesurvey DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	files, err := canvases(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cfg := workflow.Config{}
	if py, err := pyrun.New(pyrun.Config{}); err == nil {
		cfg.Python = py
	} else {
		fmt.Printf("Python code nodes are off on this machine (%v): canvases with them count as refused\n\n", err)
	}
	s := &surveyor{eng: workflow.New(cfg), flagged: map[string]int{}}
	refused, drafts := map[string]int{}, map[string]int{}
	valid, kept := 0, 0
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		reasons, draft := s.survey(f)
		switch {
		case len(reasons) == 0:
			valid++
			fmt.Printf("imported  %s\n", rel)
			continue
		case draft:
			kept++
			fmt.Printf("draft     %s (kept with allow_partial; does not validate, as in Coze)\n", rel)
			tally(drafts, reasons)
		default:
			fmt.Printf("refused   %s\n", rel)
			tally(refused, reasons)
		}
	}
	fmt.Printf("\n%d of %d canvases import: %d valid, %d as drafts that do not validate (allow_partial keeps them)\n",
		valid+kept, len(files), valid, kept)
	fmt.Printf("%d workflow ids mapped to stand-in published workflows\n", len(s.standIns))
	printTally("canvases refused, by reason:", refused)
	printTally("drafts kept with problems, by problem:", drafts)
	if len(s.flagged) > 0 {
		fmt.Println("\nnodes imported with something to look at (the report's needs_conversion), by reason:")
	}
	for _, k := range slices.Sorted(maps.Keys(s.flagged)) {
		fmt.Printf("%4d  %s\n", s.flagged[k], k)
	}
}

// tally prints each reason and counts each kind once per canvas.
func tally(counts map[string]int, reasons []reason) {
	seen := map[string]bool{}
	for _, r := range reasons {
		fmt.Printf("          %s\n", r.text)
		if !seen[r.group] {
			seen[r.group] = true
			counts[r.group]++
		}
	}
}

func printTally(title string, counts map[string]int) {
	if len(counts) > 0 {
		fmt.Println("\n" + title)
	}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Printf("%4d  %s\n", counts[k], k)
	}
}

// canvases lists the canvas files under dir, sorted.
func canvases(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".flow")) {
			out = append(out, p)
		}
		return err
	})
	slices.Sort(out)
	return out, err
}
