package workflow

import (
	"context"
	"encoding/json"
	"strings"
)

// startKind is the start node: its outputs are the workflow's parameters.
type startKind struct{}

type startConfig struct{}

func (startKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "start", Title: "Start", Category: categoryBasic,
		Description:     "Where the run begins. Its declared outputs are the workflow's parameters, filled from the run's parameters.",
		ConfigSchema:    configSchema(&startConfig{}),
		DeclaredOutputs: true}
}

func (startKind) check(c *checker, n *Node) *nodeSpec {
	var cfg startConfig
	c.decodeConfig(n, &cfg)
	c.noInputs(n)
	if c.checkParams(nodeField(n, "outputs"), n.Outputs) {
		c.checkDefaults(nodeField(n, "outputs"), n.Outputs)
	}
	return &nodeSpec{outputs: n.Outputs, runner: runFunc(func(_ context.Context, x *nodeCtx, _ map[string]any) (map[string]any, error) {
		if x.f.parent == nil && x.f.path == "" {
			x.logs = strings.Join(x.rc.paramWarnings, "\n")
		}
		return x.f.params, nil
	})}
}

// endKind is the end node: what the run returns.
type endKind struct{}

type endConfig struct {
	Mode     string `json:"mode,omitempty" jsonschema:"enum=variables,enum=text,description=variables (default): return the inputs as a JSON object; text: return the template rendered over the inputs"`
	Template string `json:"template,omitempty" jsonschema:"description=the text returned in text mode; {{input}} placeholders read the node's inputs"`
}

func (endKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "end", Title: "End", Category: categoryBasic,
		Description: "Where the run ends. Returns its inputs as variables, or a text rendered from a template " +
			"(streamed as it is generated when the run is streamed and an llm node feeds it).",
		ConfigSchema: configSchema(&endConfig{}),
		Outputs:      []Param{P("output", TypeString)}}
}

func (endKind) check(c *checker, n *Node) *nodeSpec {
	var cfg endConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	spec := &nodeSpec{}
	switch cfg.Mode {
	case "", "variables":
		if cfg.Template != "" {
			c.fail(nodeField(n, "config.template"), "is used only in text mode")
		}
		spec.finish = func(c *checker, info *nodeInfo) { info.spec.outputs = inputsAsOutputs(info) }
		spec.runner = runFunc(endVariables)
	case "text":
		t, err := checkTemplate(cfg.Template, n.Inputs)
		if err != nil {
			c.fail(nodeField(n, "config.template"), "%v", err)
			return nil
		}
		if cfg.Template == "" {
			c.fail(nodeField(n, "config.template"), "is required in text mode")
		}
		spec.text, spec.outputs = t, []Param{P("output", TypeString)}
		spec.runner = runFunc(endText)
	default:
		c.fail(nodeField(n, "config.mode"), "must be variables or text; got %q", cfg.Mode)
		return nil
	}
	return spec
}

// endVariables returns the inputs; at the top of a run it also shows them
// as the run's message, as JSON.
func endVariables(_ context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	if x.f.path == "" {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		x.rc.emit(Event{Kind: EventMessage, NodeID: x.pn.id, Type: x.pn.typ, Title: x.pn.title, Text: string(b), Final: true})
	}
	return in, nil
}

// endText renders the text; at the top of a run it is the run's message.
func endText(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	if x.f.path != "" {
		return map[string]any{"output": x.pn.spec.text.render(in)}, nil
	}
	s, err := x.showText(ctx, in)
	if err != nil {
		return nil, err
	}
	return map[string]any{"output": s}, nil
}
