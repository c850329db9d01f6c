package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cloudwego/eino/schema"
)

// Workflows as tools of llm nodes, as bots use them: the model calls a
// published workflow with its start node's parameters. An end node that
// returns variables gives the model their JSON; one that returns text
// returns directly: its text is the node's reply and the model is not
// called again. A question inside the tool workflow interrupts the run;
// the node keeps its conversation in the checkpoint, and the resumed run
// goes on inside the tool, then with the model.

// workflowToolConfig names a published workflow an llm node may call.
type workflowToolConfig struct {
	WorkflowID idValue `json:"workflow_id" jsonschema:"required"`
	Version    int64   `json:"version" jsonschema:"required,minimum=1,description=the published version called"`
}

// WorkflowDescriber names a workflow of the workspace for the tools of
// llm nodes; the WorkflowLoader may implement it.
type WorkflowDescriber interface {
	DescribeWorkflow(ctx context.Context, workspaceID, workflowID int64) (name, description string, err error)
}

// flowTool is a workflow tool, loaded when the node compiled.
type flowTool struct {
	id, version int64
	sub         *Compiled
}

func (c *checker) checkWorkflowTools(n *Node, tools []workflowToolConfig) {
	for i, t := range tools {
		at := nodeField(n, "config.workflows["+strconv.Itoa(i)+"]")
		if t.WorkflowID <= 0 {
			c.fail(at+".workflow_id", "is required")
		}
		if t.Version <= 0 {
			c.fail(at+".version", "is required: the published version to call (1 or more)")
		}
	}
}

// loadFlows compiles the node's workflow tools; it reports whether one
// may ask a question.
func (r *llmRunner) loadFlows(c *checker, n *Node) bool {
	r.flows = make([]flowTool, len(r.cfg.Workflows))
	asks := false
	for i, t := range r.cfg.Workflows {
		if t.WorkflowID > 0 && t.Version > 0 {
			sub := c.loadSub(n, int64(t.WorkflowID), t.Version)
			r.flows[i] = flowTool{id: int64(t.WorkflowID), version: t.Version, sub: sub}
			asks = asks || sub != nil && sub.asks
		}
	}
	return asks
}

// flowInfo describes a workflow tool to the model.
func flowInfo(ctx context.Context, x *nodeCtx, ft flowTool) (*schema.ToolInfo, error) {
	if ft.sub == nil {
		return nil, permanent(fmt.Errorf("workflow %d version %d was not loaded", ft.id, ft.version))
	}
	name, desc := "", ""
	if d, ok := x.rc.eng.ports.Workflows.(WorkflowDescriber); ok {
		var err error
		if name, desc, err = d.DescribeWorkflow(ctx, x.rc.in.Scope.WorkspaceID, ft.id); err != nil {
			return nil, permanent(fmt.Errorf("workflow %d: %w", ft.id, err))
		}
	}
	if desc == "" {
		desc = "Runs the workflow " + name + "."
	}
	return &schema.ToolInfo{Name: ToolName(name, ft.id), Desc: desc,
		ParamsOneOf: schema.NewParamsOneOfByParams(ToolParams(ft.sub.params))}, nil
}

// callFlow runs a workflow tool in a frame of its own, keyed by the call's
// place so a resumed run finds it. direct is set when the workflow
// returns text.
func callFlow(ctx context.Context, x *nodeCtx, ft flowTool, key, args string) (result string, direct bool, err error) {
	var in map[string]any
	if args != "" {
		v, derr := decodeValue([]byte(args))
		if in, _ = v.(map[string]any); derr != nil || in == nil {
			return "error: the arguments are not a JSON object", false, nil
		}
	}
	params, err := conformParams(ft.sub.params, in)
	if err != nil {
		return "error: " + err.Error(), false, nil
	}
	fr := x.rc.newFrame(ft.sub.plan, nil, joinPath(x.f.path, x.pn.id), -1)
	fr.params, fr.key = params, key
	if err := ft.sub.plan.invoke(ctx, fr); err != nil {
		if x.rc.interrupted() != nil {
			return "", false, errInterrupted
		}
		return "error: " + bodyError(ctx, fr, "the workflow failed", err).Error(), false, ctx.Err()
	}
	out := endOutput(fr)
	if ft.sub.text {
		s, _ := out["output"].(string)
		return s, true, nil
	}
	b, _ := json.Marshal(out)
	return string(b), false, nil
}

// endOutput returns what the frame's end node returned.
func endOutput(fr *frame) map[string]any {
	for i, pn := range fr.plan.nodes {
		if pn.typ == "end" {
			out, _ := fr.output(i)
			return out
		}
	}
	return nil
}

// toolState is an llm node's conversation with its tools, kept in the
// checkpoint when a tool workflow interrupts the run.
type toolState struct {
	Round    int               `json:"round"`
	Messages []*schema.Message `json:"messages"` // the last holds the pending calls
	Results  []*schema.Message `json:"results"`  // of the pending calls answered so far
}

func toolStateKey(key string) string { return key + "#tools" }

// saveToolState files the conversation for the resumed run.
func saveToolState(x *nodeCtx, key string, st toolState) {
	b, _ := json.Marshal(st)
	v, _ := decodeValue(b)
	x.rc.noteDone(toolStateKey(key), map[string]any{"state": v}, "")
}

// restoreToolState returns the conversation an interrupted pass kept.
func restoreToolState(x *nodeCtx, key string) (toolState, bool) {
	d, ok := x.rc.replayed(toolStateKey(key))
	if !ok {
		return toolState{}, false
	}
	b, _ := json.Marshal(d.Out["state"])
	var st toolState
	if err := json.Unmarshal(b, &st); err != nil || len(st.Messages) == 0 {
		return toolState{}, false
	}
	return st, true
}
