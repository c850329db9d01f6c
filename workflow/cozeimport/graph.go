package cozeimport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// nodeConv is the conversion of one node.
type nodeConv struct {
	c     *converter
	n     *cozeNode
	at    string // nodes[<id>] or nodes[<loop>].blocks[<id>]
	in    *cozeInputs
	node  *workflow.Node
	flags []string
}

// flag records what a builder must look at in the converted node.
func (nc *nodeConv) flag(format string, args ...any) {
	nc.flags = append(nc.flags, fmt.Sprintf(format, args...))
}

// config sets the node's config.
func (nc *nodeConv) config(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: config: %w", nc.at, err)
	}
	nc.node.Config = b
	return nil
}

// setInput adds an input; a name already taken is an error.
func (nc *nodeConv) setInput(name string, in workflow.Input) {
	if nc.node.Inputs == nil {
		nc.node.Inputs = map[string]workflow.Input{}
	}
	nc.node.Inputs[name] = in
}

// inputParams converts every inputParameters entry to an input of the
// same name.
func (nc *nodeConv) inputParams() error {
	for i, p := range nc.in.InputParameters {
		if p == nil {
			continue
		}
		in, err := nc.input(p.Input, fmt.Sprintf("data.inputs.inputParameters[%d]", i))
		if err != nil {
			return err
		}
		nc.setInput(p.Name, in)
	}
	return nil
}

// graph converts the nodes and edges of one level: the canvas, or the body
// of owner.
func (c *converter) graph(nodes []*cozeNode, edges []cozeEdge, owner *cozeNode, at string) (*workflow.Definition, error) {
	def := &workflow.Definition{Nodes: []workflow.Node{}, Edges: []workflow.Edge{}}
	kept := map[string]*cozeNode{}
	reached := targets(edges)
	for i, n := range nodes {
		if n == nil || n.ID == "" {
			return nil, errs.Invalid(fmt.Sprintf("%s[%d]", at, i), "has no id")
		}
		if len(edges) > 0 && !reached[n.ID] && n.Type != "1" && n.Type != "2" && n.Type != "31" {
			c.report.Skipped = append(c.report.Skipped, NodeReport{ID: n.ID, Type: string(n.Type),
				Reason: "no edge leads to it; Coze Studio leaves such nodes out when it runs"})
			continue
		}
		node, err := c.node(n, fmt.Sprintf("%s[%s]", at, n.ID))
		if err != nil {
			return nil, err
		}
		if node != nil {
			def.Nodes = append(def.Nodes, *node)
			kept[n.ID] = n
		}
	}
	def.Edges = c.edges(edges, owner, kept)
	return def, nil
}

// node converts one node; nil means it is left out (a comment, or an
// unsupported node without AllowPartial).
func (c *converter) node(n *cozeNode, at string) (*workflow.Node, error) {
	typ := string(n.Type)
	if typ == "31" {
		c.report.Skipped = append(c.report.Skipped, NodeReport{ID: n.ID, Type: typ, Reason: "a comment does nothing when run"})
		return nil, nil
	}
	k, ok := kindOf(typ)
	if !ok {
		reason := fmt.Sprintf("Coze node type %s has no Pergola equivalent", typ)
		if name := unsupportedName(typ); name != "" {
			reason = fmt.Sprintf("Coze %s nodes (type %s) have no Pergola equivalent", name, typ)
		}
		return c.unsupported(n, at, reason)
	}
	if !c.opts.Catalog.Has(k.pergola) {
		return c.unsupported(n, at, fmt.Sprintf("Coze %s nodes need a %q node type, which this engine does not have", k.name, k.pergola))
	}
	nc := &nodeConv{c: c, n: n, at: at, node: &workflow.Node{ID: c.ids[n.ID], Type: k.pergola, Title: n.title()}}
	var err error
	if nc.in, err = decodeInputs(n, at); err != nil {
		return nil, err
	}
	if nc.in.Batch != nil && nc.in.Batch.BatchEnable {
		return c.batchWrapped(nc)
	}
	if err := k.convert(nc); err != nil {
		var u *unsupportedError
		if errors.As(err, &u) {
			return c.unsupported(n, at, u.reason)
		}
		return nil, err
	}
	if err := nc.settings(); err != nil {
		return nil, err
	}
	rep := NodeReport{ID: n.ID, PergolaID: c.ids[n.ID], Type: typ, PergolaType: k.pergola}
	if len(nc.flags) == 0 {
		c.report.Converted = append(c.report.Converted, rep)
	} else {
		rep.Reason = strings.Join(nc.flags, "; ")
		c.report.NeedsConversion = append(c.report.NeedsConversion, rep)
	}
	return nc.node, nil
}

// unsupported reports a node; with AllowPartial it becomes a code node
// that fails naming it, declaring the outputs the canvas gives it.
func (c *converter) unsupported(n *cozeNode, at, reason string) (*workflow.Node, error) {
	c.report.Unsupported = append(c.report.Unsupported, NodeReport{ID: n.ID, Type: string(n.Type), Reason: reason})
	if !c.opts.AllowPartial {
		return nil, nil
	}
	c.placeholders[n.ID] = true
	nc := &nodeConv{c: c, n: n, at: at, node: &workflow.Node{ID: c.ids[n.ID], Type: "code", Title: n.title()}}
	outs, err := nc.declaredOutputs()
	if err != nil || len(outs) == 0 {
		outs = []workflow.Param{workflow.P("output", workflow.TypeString)} // a code node declares one at least
	}
	nc.node.Outputs = outs
	msg := strconv.Quote(fmt.Sprintf("Coze node %s (type %s) was not converted: %s", n.ID, n.Type, reason))
	err = nc.config(map[string]string{"language": "javascript",
		"code": "function main({ params }) {\n  throw new Error(" + msg + ");\n}\n"})
	return nc.node, err
}

// edges converts the edges of one level. Edges from the owner's inline
// output port start the body; edges back to the owner end an iteration,
// which in the DSL a node without successor does. Edges of left-out nodes
// are left out.
func (c *converter) edges(edges []cozeEdge, owner *cozeNode, kept map[string]*cozeNode) []workflow.Edge {
	out := []workflow.Edge{}
	seen := map[workflow.Edge]bool{}
	for _, e := range edges {
		var from *cozeNode
		switch {
		case owner != nil && e.TargetNodeID == owner.ID:
			continue
		case owner != nil && e.SourceNodeID == owner.ID:
			from = owner
		default:
			from = kept[e.SourceNodeID]
		}
		if from == nil || kept[e.TargetNodeID] == nil {
			continue
		}
		edge := workflow.Edge{From: c.ids[e.SourceNodeID], To: c.ids[e.TargetNodeID]}
		if from != owner && !c.placeholders[from.ID] {
			edge.FromPort = c.port(from, e.SourcePortID)
		}
		if !seen[edge] {
			seen[edge] = true
			out = append(out, edge)
		}
	}
	return out
}

// port maps a Coze source port to the DSL's: a selector's true, true_N and
// false to branch_0, branch_N and else; an intent's branch_N to the N-th
// intent and default to other; branch_error to error.
func (c *converter) port(from *cozeNode, port string) string {
	if port == "branch_error" {
		return workflow.ErrorPort
	}
	switch string(from.Type) {
	case "8":
		switch {
		case port == "true":
			return "branch_0"
		case port == "false":
			return workflow.ElsePort
		case strings.HasPrefix(port, "true_"):
			return "branch_" + strings.TrimPrefix(port, "true_")
		}
	case "22":
		if port == "default" {
			return workflow.OtherPort
		}
		if i, err := strconv.Atoi(strings.TrimPrefix(port, "branch_")); err == nil && i >= 0 {
			return port
		}
	}
	return ""
}

// targets are the nodes an edge leads to.
func targets(edges []cozeEdge) map[string]bool {
	out := make(map[string]bool, len(edges))
	for _, e := range edges {
		out[e.TargetNodeID] = true
	}
	return out
}
