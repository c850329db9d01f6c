package workflow

import "context"

// breakKind is the break node (stop true) or the continue node.
type breakKind struct{ stop bool }

type breakConfig struct{}

func (k breakKind) name() string {
	if k.stop {
		return "break"
	}
	return "continue"
}

func (k breakKind) describe() NodeTypeInfo {
	desc := "Inside a loop body: ends the current iteration, which collects nothing, and goes on with the next."
	title := "Continue"
	if k.stop {
		desc, title = "Inside a loop body: ends the loop after the current iteration, which collects nothing.", "Break"
	}
	return NodeTypeInfo{Type: k.name(), Title: title, Category: categoryControl, Description: desc,
		ConfigSchema: configSchema(&breakConfig{})}
}

func (k breakKind) check(c *checker, n *Node) *nodeSpec {
	var cfg breakConfig
	c.decodeConfig(n, &cfg)
	c.noInputs(n)
	c.noOutputs(n)
	if c.cur.top() || c.cur.owner.node.Type != "loop" {
		c.fail(nodeField(n, "type"), "a %s node belongs in the body of a loop node", k.name())
		return nil
	}
	sig := signalContinue
	if k.stop {
		sig = signalBreak
	}
	spec := &nodeSpec{runner: runFunc(func(_ context.Context, x *nodeCtx, _ map[string]any) (map[string]any, error) {
		x.f.setSignal(sig)
		return map[string]any{}, nil
	})}
	spec.finish = func(c *checker, info *nodeInfo) {
		if len(info.graph.out[n.ID]) > 0 {
			c.fail(nodeField(n, ""), "a %s node ends the iteration; it cannot have outgoing edges", k.name())
		}
	}
	return spec
}

// setVariableKind changes loop variables.
type setVariableKind struct{}

type setVariableConfig struct{}

func (setVariableKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "set_variable", Title: "Set loop variable", Category: categoryControl,
		Description: "Inside a loop body: every input names a variable of the loop and gives its new value, seen " +
			"by the rest of the iteration and the next ones.",
		ConfigSchema: configSchema(&setVariableConfig{})}
}

func (setVariableKind) check(c *checker, n *Node) *nodeSpec {
	var cfg setVariableConfig
	c.decodeConfig(n, &cfg)
	c.noOutputs(n)
	if c.cur.top() || c.cur.owner.node.Type != "loop" {
		c.fail(nodeField(n, "type"), "a set_variable node belongs in the body of a loop node")
		return nil
	}
	owner := c.cur.owner
	if len(n.Inputs) == 0 {
		c.fail(nodeField(n, "inputs"), "name at least one loop variable to set")
	}
	spec := &nodeSpec{runner: runFunc(func(_ context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
		for k, v := range in {
			x.f.loop.set(k, cloneValue(v))
		}
		return map[string]any{}, nil
	})}
	spec.finish = func(c *checker, info *nodeInfo) {
		for name, s := range info.inTypes {
			v, ok := findParam(owner.vars, name)
			if !ok || name == "item" || name == "index" {
				c.fail(nodeField(n, "inputs."+name), "is not a variable of loop %s; its variables are its inputs other than items and count", owner.node.ID)
				continue
			}
			if !v.Schema.accepts(s) {
				c.fail(nodeField(n, "inputs."+name), "is %s, but loop variable %s is %s", s, name, v.Schema)
			}
		}
	}
	return spec
}
