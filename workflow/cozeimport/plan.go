package cozeimport

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Plan is the order in which the workflows of an export are imported.
type Plan struct {
	// Order lists indexes of the export, each after the workflows it runs.
	Order []int
	// Runs lists, per index, the ids of the export's workflows it runs.
	Runs [][]string
	// Used are the ids another workflow of the export runs: they are
	// published, so that the workflows running them can pin a version.
	Used map[string]bool
}

// PlanExport orders the workflows of an export by what they run. Every
// workflow a canvas runs must be in the export or in mapped (a
// sub-workflow node's, unless allowPartial: the converter then keeps it
// as a failing placeholder), and the workflows may not run each other in
// a cycle; the errors name the workflow, the node, its type and field.
func PlanExport(ws []ExportWorkflow, mapped map[string]WorkflowRef, allowPartial bool) (*Plan, error) {
	index := map[string]int{}
	for i, w := range ws {
		if _, ok := mapped[w.ID]; ok {
			return nil, errs.Invalid(exportAt(i, w)+".id", "workflow %s is in the export and also in mappings.workflows: give it once", w.ID)
		}
		index[w.ID] = i
	}
	p := &Plan{Runs: make([][]string, len(ws)), Used: map[string]bool{}}
	refs := make([][]Reference, len(ws))
	for i, w := range ws {
		var err error
		if refs[i], err = References(w.Canvas); err != nil {
			return nil, prefixed(exportAt(i, w), err)
		}
		for _, r := range refs[i] {
			if _, ok := index[r.WorkflowID]; ok {
				p.Used[r.WorkflowID] = true
				if !slices.Contains(p.Runs[i], r.WorkflowID) {
					p.Runs[i] = append(p.Runs[i], r.WorkflowID)
				}
			} else if err := resolve(exportAt(i, w)+".", r, mapped, allowPartial); err != nil {
				return nil, err
			}
		}
	}
	return p, p.order(ws, refs, index)
}

// CheckReferences checks that every workflow a canvas runs is mapped
// (with allowPartial none need be: the converter keeps a sub-workflow
// node as a failing placeholder and leaves an LLM node's workflow tool
// out, reporting both); the error names the node, type and field.
func CheckReferences(canvas []byte, mapped map[string]WorkflowRef, allowPartial bool) error {
	refs, err := References(canvas)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if err := resolve("", r, mapped, allowPartial); err != nil {
			return err
		}
	}
	return nil
}

// resolve checks one reference to a workflow outside the import.
func resolve(at string, r Reference, mapped map[string]WorkflowRef, allowPartial bool) error {
	if _, ok := mapped[r.WorkflowID]; ok || allowPartial {
		return nil
	}
	return errs.Invalid(at+r.At+"."+r.Field, "(a type %s node) runs Coze workflow %q, which is neither in the "+
		"import nor mapped: add its canvas to the export or manifest, or map it to a published Pergola workflow in mappings.workflows",
		r.Type, r.WorkflowID)
}

// order sorts the workflows depth first, refusing a cycle.
func (p *Plan) order(ws []ExportWorkflow, refs [][]Reference, index map[string]int) error {
	state := make([]int, len(ws)) // 0 new, 1 on the path, 2 done
	var path []int
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 1:
			return cycleError(ws, refs, append(path, i))
		case 2:
			return nil
		}
		state[i] = 1
		path = append(path, i)
		for _, id := range p.Runs[i] {
			if err := visit(index[id]); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		state[i] = 2
		p.Order = append(p.Order, i)
		return nil
	}
	for i := range ws {
		if err := visit(i); err != nil {
			return err
		}
	}
	return nil
}

// cycleError names the workflows of a cycle and the nodes that close it.
func cycleError(ws []ExportWorkflow, refs [][]Reference, path []int) error {
	last := path[len(path)-1]
	start := 0
	for path[start] != last {
		start++
	}
	var steps []string
	for k := start; k < len(path)-1; k++ {
		from, to := path[k], path[k+1]
		node := ""
		for _, r := range refs[from] {
			if r.WorkflowID == ws[to].ID {
				node = fmt.Sprintf(" through %s (type %s) %s", r.At, r.Type, r.Field)
				break
			}
		}
		steps = append(steps, fmt.Sprintf("%s runs %s%s", label(ws[from]), label(ws[to]), node))
	}
	return errs.Invalid(exportAt(path[start], ws[path[start]]), "the workflows run each other in a cycle, which "+
		"cannot be imported: %s", strings.Join(steps, "; "))
}

// label names a workflow of an export by id and file.
func label(w ExportWorkflow) string {
	if w.File != "" {
		return fmt.Sprintf("workflow %s (%s)", w.ID, w.File)
	}
	return "workflow " + w.ID
}

// prefixed puts where in the export an error of one canvas happened in
// front of its field.
func prefixed(at string, err error) error {
	var fe *errs.FieldError
	if errors.As(err, &fe) {
		return errs.Invalid(at+"."+fe.Field, "%s", fe.Reason)
	}
	return fmt.Errorf("%s: %w", at, err)
}
