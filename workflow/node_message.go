package workflow

import "context"

// messageKind shows an intermediate message while the run goes on.
type messageKind struct{}

type messageConfig struct {
	Template string `json:"template" jsonschema:"required,description=the message; {{input}} placeholders read the node's inputs"`
}

func (messageKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "message", Title: "Message", Category: categoryIO,
		Description: "Shows an intermediate message (a Message event of a streamed run), streamed as an llm node " +
			"generates it when one feeds it directly. Its output is the text.",
		ConfigSchema: configSchema(&messageConfig{}),
		Outputs:      []Param{P("output", TypeString)}}
}

func (messageKind) check(c *checker, n *Node) *nodeSpec {
	var cfg messageConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	if cfg.Template == "" {
		c.fail(nodeField(n, "config.template"), "is required")
		return nil
	}
	t, err := checkTemplate(cfg.Template, n.Inputs)
	if err != nil {
		c.fail(nodeField(n, "config.template"), "%v", err)
		return nil
	}
	return &nodeSpec{outputs: []Param{P("output", TypeString)}, text: t,
		runner: runFunc(func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			s, err := x.showText(ctx, in)
			if err != nil {
				return nil, err
			}
			return map[string]any{"output": s}, nil
		})}
}
