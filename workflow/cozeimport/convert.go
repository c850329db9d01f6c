// Package cozeimport converts a workflow canvas exported from Coze Studio
// (nodes with numeric types, blocks, edges with ports, inputs with literal
// and reference values) into a Pergola workflow definition, with a report
// of what was converted, what needs a builder's attention and what could
// not be converted. It is pure: bytes in, a definition and a report out.
package cozeimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// Options map what a canvas names in Coze Studio (models, plugins,
// database tables, workflows, datasets) to their Pergola counterparts. An unmapped
// id is kept as it is and the node is reported as needing conversion.
type Options struct {
	// Catalog tells which node types the engine has; nil takes
	// workflow.NewCatalog().
	Catalog *workflow.Catalog
	// Models maps a Coze model (modelType) to a Pergola model id.
	Models map[string]string
	// DefaultModelID is used for a model not in Models.
	DefaultModelID string
	// Plugins maps a Coze plugin id to a Pergola plugin id.
	Plugins map[string]int64
	// Tables maps a Coze database id to a Pergola table id.
	Tables map[string]int64
	// Workflows maps a Coze workflow id to a published Pergola workflow.
	Workflows map[string]WorkflowRef
	// RequireWorkflowMappings makes a sub-workflow node whose Coze
	// workflow is not in Workflows unsupported; without it the id is kept
	// and the node reported as needing conversion.
	RequireWorkflowMappings bool
	// Knowledge maps a Coze dataset id to a Pergola knowledge base id.
	Knowledge map[string]int64
	// RequireKnowledgeMappings makes a knowledge node (or an LLM node with
	// knowledge) naming a dataset that is not in Knowledge unsupported;
	// without it the id is kept and the node reported as needing
	// conversion.
	RequireKnowledgeMappings bool
	// AllowPartial converts a canvas with unsupported nodes: each becomes
	// a code node that fails, naming the Coze node, if the run reaches it.
	AllowPartial bool
	// InApp imports the workflow into an app: Coze's user variables
	// become app variables, as Coze keeps them per app (variables.go).
	InApp bool
}

// WorkflowRef is a published version of a Pergola workflow.
type WorkflowRef struct {
	ID      int64 `json:"id"`
	Version int64 `json:"version"`
}

// Report says what became of every node of the canvas.
type Report struct {
	Converted       []NodeReport `json:"converted"`
	NeedsConversion []NodeReport `json:"needs_conversion"`
	Unsupported     []NodeReport `json:"unsupported"`
	// Skipped are nodes that do nothing when run (comments).
	Skipped []NodeReport `json:"skipped"`
}

// NodeReport names a node of the canvas by id and Coze type; Reason says
// what is missing, PergolaID and PergolaType what it became.
type NodeReport struct {
	ID          string `json:"id"`
	PergolaID   string `json:"pergola_id,omitempty"`
	Type        string `json:"type"`
	PergolaType string `json:"pergola_type,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// unsafeIDRE matches what a DSL node id may not hold.
var unsafeIDRE = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// Result is a converted canvas.
type Result struct {
	Definition *workflow.Definition
	Report     Report
	// AppVariables names the app variables the workflow reads or assigns
	// (app.<name> inputs): run it with an app that declares them.
	AppVariables []string
	// AppVariableTypes gives the type of those the canvas reads, in the
	// app's terms (string, integer, number, boolean, object, array).
	AppVariableTypes map[string]string
}

// Convert reads a canvas (its JSON, or a JSON string holding it) and
// converts it. A canvas that cannot be read, or a node whose settings are
// malformed, fails with errs.ErrInvalid naming the node (nodes[<id>]...).
// Unsupported nodes do not fail the conversion: they are listed in the
// report, and without AllowPartial left out of the definition; the caller
// decides (see Report.UnsupportedText).
func Convert(data []byte, opts Options) (*Result, error) {
	cv, err := readCanvas(data)
	if err != nil {
		return nil, err
	}
	if opts.Catalog == nil {
		opts.Catalog = workflow.NewCatalog()
	}
	c := &converter{opts: opts, byID: map[string]*cozeNode{}, placeholders: map[string]bool{}, ids: map[string]string{}, batched: map[string]bool{}}
	c.index(cv.Nodes, nil)
	def, err := c.graph(cv.Nodes, cv.Edges, nil, "nodes")
	if err != nil {
		return nil, err
	}
	c.report.sort()
	def.Compat = workflow.CompatCoze
	return &Result{Definition: def, Report: c.report, AppVariables: c.appVars, AppVariableTypes: c.appTypes}, nil
}

// readCanvas decodes a canvas given as an object, as a JSON string, or as
// the .flow file Coze Studio's editor exports (which holds the canvas).
func readCanvas(data []byte) (*canvas, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, errs.Invalid("canvas", "is not a valid JSON string: %v", err)
		}
		data = []byte(s)
	}
	data, _ = canvasOf(data)
	var cv canvas
	if err := json.Unmarshal(data, &cv); err != nil {
		return nil, errs.Invalid("canvas", "is not a Coze Studio canvas: %v", err)
	}
	if len(cv.Nodes) == 0 {
		return nil, errs.Invalid("canvas.nodes", "is empty")
	}
	return &cv, nil
}

// converter holds the state of one conversion.
type converter struct {
	opts   Options
	report Report
	// byID indexes every node, bodies included, for references.
	byID map[string]*cozeNode
	// parents maps a body node to the loop or batch holding it.
	parents map[string]*cozeNode
	// ids maps Coze node ids to DSL ids, which must start with a letter.
	ids map[string]string
	// placeholders are unsupported nodes kept as failing code nodes.
	placeholders map[string]bool
	// batched are nodes in batch mode, converted as batch nodes.
	batched map[string]bool
	// appVars are the app variables the canvas reads or assigns, appTypes
	// the types of those it reads.
	appVars  []string
	appTypes map[string]string
	// varSources maps an app variable to the Coze source naming it.
	varSources map[string]string
}

func (c *converter) index(nodes []*cozeNode, parent *cozeNode) {
	if c.parents == nil {
		c.parents = map[string]*cozeNode{}
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		c.byID[n.ID] = n
		c.ids[n.ID] = c.dslID(n, parent)
		if parent != nil {
			c.parents[n.ID] = parent
		}
		c.index(n.Blocks, n)
	}
}

// dslID names a node in the DSL: the canvas's start and end nodes are
// "start" and "end", every other node n<id>.
func (c *converter) dslID(n *cozeNode, parent *cozeNode) string {
	taken := func(id string) bool {
		for _, v := range c.ids {
			if v == id {
				return true
			}
		}
		return false
	}
	switch {
	case parent == nil && n.Type == "1" && !taken("start"):
		return "start"
	case parent == nil && n.Type == "2" && !taken("end"):
		return "end"
	}
	return "n" + unsafeIDRE.ReplaceAllString(n.ID, "_")
}

// UnsupportedText names the nodes that could not be converted, "" when all
// could: "nodes[12] (type 6: ...), ...".
func (r *Report) UnsupportedText() string {
	var b bytes.Buffer
	for i, n := range r.Unsupported {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "nodes[%s] (type %s): %s", n.ID, n.Type, n.Reason)
	}
	return b.String()
}

func (r *Report) sort() {
	for _, l := range []*[]NodeReport{&r.Converted, &r.NeedsConversion, &r.Unsupported, &r.Skipped} {
		if *l == nil {
			*l = []NodeReport{}
		}
		sort.SliceStable(*l, func(i, j int) bool { return (*l)[i].ID < (*l)[j].ID })
	}
}

// appVariable notes an app variable the canvas uses.
func (c *converter) appVariable(name string) {
	if !slices.Contains(c.appVars, name) {
		c.appVars = append(c.appVars, name)
	}
}

// appVariableType notes the type a canvas reads an app variable as.
func (c *converter) appVariableType(name, cozeType string) {
	types := map[string]string{"string": "string", "integer": "integer", "float": "number", "number": "number",
		"boolean": "boolean", "object": "object", "list": "array"}
	if t, ok := types[cozeType]; ok {
		if c.appTypes == nil {
			c.appTypes = map[string]string{}
		}
		c.appTypes[name] = t
	}
}
