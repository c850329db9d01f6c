package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// subWorkflowKind runs a pinned version of another workflow.
type subWorkflowKind struct{}

type subWorkflowConfig struct {
	WorkflowID idValue `json:"workflow_id" jsonschema:"required"`
	Version    int64   `json:"version" jsonschema:"required,minimum=1,description=the published version run; pinned so an edit of the other workflow does not change this one"`
}

func (subWorkflowKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "sub_workflow", Title: "Sub-workflow", Category: categoryControl, Composite: true,
		Description: "Runs a published version of another workflow of the workspace: the inputs are its parameters, " +
			"the outputs what its end node returns. Its nodes are recorded in the run history under this node.",
		ConfigSchema: configSchema(&subWorkflowConfig{}), DeclaredOutputs: true}
}

func (subWorkflowKind) check(c *checker, n *Node) *nodeSpec {
	var cfg subWorkflowConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	if cfg.WorkflowID <= 0 {
		c.fail(nodeField(n, "config.workflow_id"), "is required")
	}
	if cfg.Version <= 0 {
		c.fail(nodeField(n, "config.version"), "is required: the published version to run (1 or more)")
	}
	declared := c.declaredOr(n, nil)
	spec := &nodeSpec{outputs: declared, composite: true, blocking: true, runner: runFunc(runSub)}
	spec.finish = func(c *checker, info *nodeInfo) {
		if cfg.WorkflowID <= 0 || cfg.Version <= 0 {
			return
		}
		sub := c.loadSub(n, int64(cfg.WorkflowID), cfg.Version)
		if sub == nil {
			return
		}
		info.sub = sub
		c.matchSub(info, sub, declared)
	}
	return spec
}

// loadSub compiles the pinned workflow of a sub-workflow node, refusing
// cycles and excessive nesting. It returns nil when the sub-workflow
// cannot be resolved here (validation without a workspace).
func (c *checker) loadSub(n *Node, id, version int64) *Compiled {
	loader := c.eng.ports.Workflows
	if loader == nil || c.opts.WorkspaceID == 0 {
		if c.compiling {
			c.fail(nodeField(n, "config.workflow_id"), "sub-workflows cannot be loaded in this process")
		}
		return nil
	}
	key := VersionKey(id, version)
	if slices.Contains(c.stack, key) {
		c.fail(nodeField(n, "config.workflow_id"), "workflow %d version %d calls itself through sub-workflows (%s)", id, version, strings.Join(append(c.stack, key), " → "))
		return nil
	}
	if len(c.stack) >= c.eng.limits.MaxDepth {
		c.fail(nodeField(n, "config.workflow_id"), "sub-workflows nest more than %d levels deep", c.eng.limits.MaxDepth)
		return nil
	}
	sub, err := c.eng.cache.get(key, func() (*Compiled, error) {
		def, err := loader.LoadWorkflow(c.ctx, c.opts.WorkspaceID, id, version)
		if err != nil {
			return nil, err
		}
		opts := CompileOptions{WorkspaceID: c.opts.WorkspaceID, WorkflowID: id}
		return c.eng.compile(c.ctx, key, def, opts, append(slices.Clone(c.stack), key))
	})
	if err != nil {
		var v *ValidationError
		if errors.As(err, &v) {
			err = fmt.Errorf("is invalid: %v", err)
		}
		c.fail(nodeField(n, "config"), "workflow %d version %d: %v", id, version, err)
		return nil
	}
	return sub
}

// matchSub checks the node's inputs against the sub-workflow's parameters
// and its declared outputs against what it returns.
func (c *checker) matchSub(info *nodeInfo, sub *Compiled, declared []Param) {
	n := info.node
	for _, p := range sub.params {
		got, ok := info.inTypes[p.Name]
		switch {
		case !ok && p.Required:
			c.fail(nodeField(n, "inputs."+p.Name), "is a required parameter of the sub-workflow (%s)", p.Schema)
		case ok && !p.Schema.accepts(got):
			c.fail(nodeField(n, "inputs."+p.Name), "is %s, but the sub-workflow's parameter is %s", got, p.Schema)
		}
	}
	for name := range info.inTypes {
		if _, ok := findParam(sub.params, name); !ok {
			c.fail(nodeField(n, "inputs."+name), "is not a parameter of the sub-workflow")
		}
	}
	if len(declared) == 0 {
		info.spec.outputs = sub.outputs
		return
	}
	for _, d := range declared {
		p, ok := findParam(sub.outputs, d.Name)
		if !ok || !d.Schema.accepts(p.Schema) {
			c.fail(nodeField(n, "outputs."+d.Name), "the sub-workflow returns no %s %s", d.Schema, d.Name)
		}
	}
}

// runSub runs the sub-workflow in a frame of its own; its nodes are
// recorded under this node.
func runSub(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	sub := x.pn.sub
	if sub == nil {
		return nil, permanent(errors.New("the sub-workflow was not loaded"))
	}
	params, warns, err := sub.runParams(in)
	if err != nil {
		return nil, permanent(err)
	}
	x.logs = joinLogs(warns, x.logs)
	fr := x.rc.newFrame(sub.plan, nil, joinPath(x.f.path, x.pn.id), -1)
	fr.params, fr.key = params, x.f.nodeKey(x.pn)
	if err := sub.plan.invoke(ctx, fr); err != nil {
		return nil, bodyError(ctx, fr, "in the sub-workflow", err)
	}
	for i, pn := range sub.plan.nodes {
		if pn.typ == "end" {
			out, _ := fr.output(i)
			return out, nil
		}
	}
	return nil, errors.New("the sub-workflow has no end node")
}
