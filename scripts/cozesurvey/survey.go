package main

import (
	"context"
	"fmt"
	"os"
	"regexp"

	"github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/cozeimport"
)

// surveyor imports canvases one by one.
type surveyor struct {
	eng *workflow.Engine
	// standIns map the Coze workflow ids canvases run to stand-in
	// published workflows, as a manifest's mappings.workflows would.
	standIns map[string]cozeimport.WorkflowRef
	// flagged counts the nodes imported with something to look at
	// (the report's needs_conversion), by reason.
	flagged map[string]int
}

// reason is why a canvas did not import: the text names the node, group
// is the reason without the node, for the summary.
type reason struct {
	text, group string
}

// survey imports one canvas and returns why it was refused, nothing when
// it imports; draft says the reasons are the problems of a converted
// definition, which an import with allow_partial keeps as a draft.
func (s *surveyor) survey(path string) (reasons []reason, draft bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return []reason{{text: err.Error(), group: "unreadable"}}, false
	}
	opts, err := s.options(b)
	if err != nil {
		return []reason{{text: err.Error(), group: "malformed: " + generic(err.Error())}}, false
	}
	res, err := cozeimport.Convert(b, opts)
	if err != nil {
		return []reason{{text: err.Error(), group: "malformed: " + generic(err.Error())}}, false
	}
	for _, n := range res.Report.NeedsConversion {
		s.flagged[fmt.Sprintf("type %s: %s", n.Type, generic(n.Reason))]++
	}
	var out []reason
	for _, n := range res.Report.Unsupported {
		out = append(out, reason{text: fmt.Sprintf("nodes[%s] (type %s): %s", n.ID, n.Type, n.Reason),
			group: fmt.Sprintf("type %s: %s", n.Type, generic(n.Reason))})
	}
	if len(out) > 0 {
		return out, false
	}
	err = s.eng.Validate(context.Background(), res.Definition, workflow.CompileOptions{})
	for _, p := range workflow.Problems(err) {
		out = append(out, reason{text: p.Field + ": " + p.Reason, group: generic(p.Reason)})
	}
	if err != nil && len(out) == 0 {
		return []reason{{text: err.Error(), group: "invalid: " + generic(err.Error())}}, false
	}
	return out, len(out) > 0
}

// options maps the workflows the canvas runs to stand-ins, with
// allow_partial: unsupported nodes are still reported as refusals, and a
// draft that does not validate is kept.
func (s *surveyor) options(canvas []byte) (cozeimport.Options, error) {
	refs, err := cozeimport.References(canvas)
	if err != nil {
		return cozeimport.Options{}, err
	}
	if s.standIns == nil {
		s.standIns = map[string]cozeimport.WorkflowRef{}
	}
	for _, id := range cozeimport.ReferencedIDs(refs) {
		if _, ok := s.standIns[id]; !ok {
			s.standIns[id] = cozeimport.WorkflowRef{ID: int64(len(s.standIns) + 1), Version: 1}
		}
	}
	return cozeimport.Options{DefaultModelID: "fake", Workflows: s.standIns, RequireWorkflowMappings: true, AllowPartial: true}, nil
}

var (
	nodeIDRE = regexp.MustCompile(`(nodes|blocks)\[[^\]]*\]`)
	numberRE = regexp.MustCompile(`\b[n]?\d{3,}\b`)
	quotedRE = regexp.MustCompile(`"[^"]*"`)
)

// generic takes the node ids, numbers and quoted names out of a reason so
// that reasons of the same kind group together.
func generic(s string) string {
	s = nodeIDRE.ReplaceAllString(s, "$1[…]")
	s = quotedRE.ReplaceAllString(s, `"…"`)
	return numberRE.ReplaceAllString(s, "…")
}
