package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// aggregateKind picks, per group, the first of its inputs that is not
// null: the value of whichever branch ran.
type aggregateKind struct{}

type aggregateConfig struct {
	Groups map[string][]string `json:"groups" jsonschema:"required,description=output name → the inputs tried in order; the first that is not null is output"`
}

func (aggregateKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "variable_aggregate", Title: "Variable aggregate", Category: categoryData,
		Description: "Merges the branches of a condition: each group outputs the first of its inputs that is not null " +
			"(the value of the branch that ran). The inputs of a group must share a type. In a streamed run, an end or message " +
			"node showing a group whose value is an llm node's text streams that text as the model generates it.",
		ConfigSchema: configSchema(&aggregateConfig{})}
}

func (aggregateKind) check(c *checker, n *Node) *nodeSpec {
	var cfg aggregateConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	if len(cfg.Groups) == 0 {
		c.fail(nodeField(n, "config.groups"), "needs at least one group")
		return nil
	}
	names := slices.Sorted(maps.Keys(cfg.Groups))
	for _, g := range names {
		if !inputNamePattern.MatchString(g) {
			c.fail(nodeField(n, "config.groups."+g), "is not a valid output name")
		}
		if len(cfg.Groups[g]) == 0 {
			c.fail(nodeField(n, "config.groups."+g), "lists no input")
		}
		for _, in := range cfg.Groups[g] {
			if _, ok := n.Inputs[in]; !ok {
				c.fail(nodeField(n, "config.groups."+g), "names no input of the node: %q", in)
			}
		}
	}
	spec := &nodeSpec{runner: aggregateRunner{groups: cfg.Groups, names: names}}
	spec.finish = func(c *checker, info *nodeInfo) {
		for _, g := range names {
			var s Schema
			for i, name := range cfg.Groups[g] {
				t := info.inTypes[name]
				if i > 0 && !s.accepts(t) && !t.accepts(s) {
					c.fail(nodeField(n, "config.groups."+g), "mixes types: %s is %s, %s is %s", cfg.Groups[g][0], s, name, t)
				}
				if i == 0 {
					s = t
				}
			}
			info.spec.outputs = append(info.spec.outputs, Param{Name: g, Schema: s})
		}
	}
	return spec
}

// aggregateRunner runs a variable_aggregate node. A streamed run reads
// its groups too: a sink showing a group streams the llm node that is the
// group's value (see linkGroupStreams).
type aggregateRunner struct {
	groups map[string][]string // output name → the inputs tried in order
	names  []string            // the output names, sorted
}

func (r aggregateRunner) run(_ context.Context, _ *nodeCtx, in map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(r.names))
	for _, g := range r.names {
		for _, name := range r.groups[g] {
			if v := in[name]; v != nil {
				out[g] = v
				break
			}
		}
	}
	return out, nil
}

// assignKind writes bot variables of the run's end user.
type assignKind struct{}

type assignConfig struct {
	App []string `json:"app,omitempty" jsonschema:"description=inputs that are app variables of the run's app (app_id); the others are bot variables"`
}

func (assignKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "variable_assign", Title: "Variable assign", Category: categoryData,
		Description: "Stores variables of the run's end user: every input is a variable name and its value; bot " +
			"variables (the run needs bot_id) unless config.app lists the input as an app variable (the run needs app_id).",
		ConfigSchema: configSchema(&assignConfig{}),
		Outputs:      []Param{P("success", TypeBoolean)}}
}

func (assignKind) check(c *checker, n *Node) *nodeSpec {
	var cfg assignConfig
	c.decodeConfig(n, &cfg)
	c.noOutputs(n)
	if len(n.Inputs) == 0 {
		c.fail(nodeField(n, "inputs"), "name at least one variable to assign")
	}
	for name := range n.Inputs {
		if !keywordPattern.MatchString(name) {
			c.fail(nodeField(n, "inputs."+name), "is not a variable keyword")
		}
	}
	for i, name := range cfg.App {
		if _, ok := n.Inputs[name]; !ok {
			c.fail(nodeField(n, fmt.Sprintf("config.app[%d]", i)), "names no input of the node: %q", name)
		}
	}
	return &nodeSpec{outputs: []Param{P("success", TypeBoolean)}, blocking: true,
		runner: runFunc(func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			return assign(ctx, x, in, cfg.App)
		})}
}

// assign stores the inputs: those named in app as app variables, the
// others as bot variables.
func assign(ctx context.Context, x *nodeCtx, in map[string]any, app []string) (map[string]any, error) {
	appValues := map[string]any{}
	for _, name := range app {
		appValues[name] = in[name]
	}
	if len(appValues) > 0 {
		if err := assignApp(ctx, x.rc, appValues); err != nil {
			return nil, err
		}
	}
	bot := make(map[string]any, len(in))
	for k, v := range in {
		if _, isApp := appValues[k]; !isApp {
			bot[k] = v
		}
	}
	if len(bot) == 0 {
		return map[string]any{"success": true}, nil
	}
	return assignBot(ctx, x, bot)
}

func assignBot(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	vs, s := x.rc.eng.ports.Variables, x.rc.in.Scope
	if vs == nil {
		return nil, permanent(errors.New("bot variables are not available in this process"))
	}
	if s.BotID == 0 {
		return nil, permanent(errors.New("assigning bot variables needs a bot: run the workflow with bot_id"))
	}
	values := make(map[string]string, len(in))
	for k, v := range in {
		values[k] = text(v)
	}
	if err := vs.SetVariables(ctx, s, values); err != nil {
		return nil, err
	}
	x.rc.mu.Lock()
	if x.rc.vars != nil {
		maps.Copy(x.rc.vars, values)
	}
	x.rc.mu.Unlock()
	return map[string]any{"success": true}, nil
}

// botVariable reads one bot variable of the run's end user; the variables
// are read from the store once per run.
func (rc *runCtx) botVariable(ctx context.Context, name string) (string, bool, error) {
	if err := rc.loadVariables(ctx); err != nil {
		return "", false, err
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	v, ok := rc.vars[name]
	return v, ok, nil
}

func (rc *runCtx) loadVariables(ctx context.Context) error {
	rc.mu.Lock()
	loaded := rc.vars != nil
	rc.mu.Unlock()
	if loaded {
		return nil
	}
	vs, s := rc.eng.ports.Variables, rc.in.Scope
	if vs == nil {
		return errors.New("bot variables are not available in this process")
	}
	if s.BotID == 0 {
		return errors.New("reading bot variables needs a bot: run the workflow with bot_id")
	}
	got, err := vs.Variables(ctx, s)
	if err != nil {
		return fmt.Errorf("read variables of bot %d: %w", s.BotID, err)
	}
	rc.mu.Lock()
	if rc.vars == nil {
		rc.vars = maps.Clone(got)
		if rc.vars == nil {
			rc.vars = map[string]string{}
		}
	}
	rc.mu.Unlock()
	return nil
}

// cozeBotVariable reads a bot variable as Coze Studio does in a workflow
// with compat coze. A run without a bot reads null (the reading node then
// fills its type's zero value, as Coze's nodes do): Coze's own tests of
// its workflow handlers expect that, though its variable store fails. An
// unset variable (empty text) read by an input declared boolean, integer
// or number reads that type's zero value, and one declared an object or
// array reads null, as Coze's store answers for variables of those types;
// Pergola's bot variables are text, so the reading input gives the type.
func (rc *runCtx) cozeBotVariable(ctx context.Context, name string, want Schema) (any, error) {
	s := rc.in.Scope
	if s.BotID == 0 {
		return nil, nil
	}
	v, ok, err := rc.botVariable(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("bot %d has no variable %q", s.BotID, name)
	}
	if v != "" {
		return v, nil
	}
	switch want.Type {
	case TypeBoolean, TypeInteger, TypeNumber, TypeObject, TypeArray:
		return zeroOf(want), nil
	}
	return v, nil
}
