package workflow

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// loopKind runs its body once per item of an array, a number of times, or
// until a break node runs.
type loopKind struct{}

type loopConfig struct {
	Mode          string         `json:"mode" jsonschema:"required,enum=array,enum=count,enum=infinite,description=array: once per item of input items; count: input count times; infinite: until a break node runs"`
	MaxIterations int            `json:"max_iterations,omitempty" jsonschema:"description=stop with an error after this many iterations (default and cap: the engine's limit)"`
	Collect       map[string]Ref `json:"collect,omitempty" jsonschema:"description=output name → a body node's output collected from every iteration into an array"`
}

func (loopKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "loop", Title: "Loop", Category: categoryControl, Composite: true,
		Description: "Runs its body sequentially: over input items (array), input count times, or until a break node runs " +
			"(infinite). Inside the body the loop's id reads item, index and the loop variables: every input other than " +
			"items and count is a loop variable, initialized from it and changed by set_variable nodes. Outputs: each " +
			"collect entry as an array, and the loop variables' final values. An iteration ended by break or continue " +
			"collects nothing.",
		ConfigSchema: configSchema(&loopConfig{}),
		Inputs: []InputInfo{{Name: "items", Type: TypeArray, Description: "mode array: the items"},
			{Name: "count", Type: TypeInteger, Description: "mode count: how many iterations"}}}
}

func (loopKind) check(c *checker, n *Node) *nodeSpec {
	var cfg loopConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	spec := &nodeSpec{composite: true, blocking: true, want: map[string]Schema{"items": S(TypeArray), "count": S(TypeInteger)}}
	switch cfg.Mode {
	case "array":
		spec.required = []string{"items"}
	case "count":
		spec.required = []string{"count"}
	case "infinite":
	default:
		c.fail(nodeField(n, "config.mode"), "must be array, count or infinite; got %q", cfg.Mode)
		return nil
	}
	limit := c.eng.limits.MaxIterations
	if cfg.MaxIterations < 0 || cfg.MaxIterations > limit {
		c.fail(nodeField(n, "config.max_iterations"), "must be between 1 and %d (0 takes %d)", limit, limit)
	} else if cfg.MaxIterations > 0 {
		limit = cfg.MaxIterations
	}
	if n.Body == nil {
		c.fail(nodeField(n, "body"), "is required: the nodes each iteration runs")
		return nil
	}
	lr := &loopRunner{mode: cfg.Mode, limit: limit}
	spec.runner = lr
	spec.finish = func(c *checker, info *nodeInfo) {
		for name, s := range info.inTypes {
			if name != "items" && name != "count" {
				lr.vars = append(lr.vars, name)
				info.vars = append(info.vars, Param{Name: name, Schema: s})
			}
		}
		slices.Sort(lr.vars)
		info.vars = append(info.vars, Param{Name: "item", Schema: itemSchema(info.inTypes["items"])}, P("index", TypeInteger))
		if slices.Contains(lr.vars, "item") || slices.Contains(lr.vars, "index") {
			c.fail(nodeField(n, "inputs"), "item and index are read by the body; a loop variable cannot take those names")
		}
		lr.collect = c.checkBody(info, cfg.Collect)
		if cfg.Mode == "infinite" && !hasBreak(info.body) {
			c.fail(nodeField(n, "body"), "an infinite loop needs a break node in its body, or it never ends")
		}
		for _, v := range lr.vars {
			info.spec.outputs = append(info.spec.outputs, Param{Name: v, Schema: info.inTypes[v]})
		}
	}
	return spec
}

func itemSchema(items Schema) Schema {
	if items.Items != nil {
		return *items.Items
	}
	return Schema{}
}

func hasBreak(g *graphInfo) bool {
	return g != nil && slices.ContainsFunc(g.nodes, func(info *nodeInfo) bool { return info.node.Type == "break" })
}

// collectSpec is an output of a composite node gathered from its body.
type collectSpec struct {
	name string
	idx  int
	path []string
}

// checkBody checks the body of a composite node, its depth, and what it
// collects; the collected outputs are added to the node's outputs.
func (c *checker) checkBody(info *nodeInfo, collect map[string]Ref) []collectSpec {
	n := info.node
	if info.graph.depth+1 > c.eng.limits.MaxDepth {
		c.fail(nodeField(n, "body"), "nests more than %d levels deep", c.eng.limits.MaxDepth)
		return nil
	}
	info.body = c.checkGraph(n.Body, info, info.graph)
	var out []collectSpec
	for _, name := range slices.Sorted(maps.Keys(collect)) {
		r, at := collect[name], nodeField(n, "config.collect."+name)
		if !inputNamePattern.MatchString(name) {
			c.fail(at, "is not a valid output name")
			continue
		}
		t, ok := info.body.byID[r.Node]
		if !ok || t.spec == nil {
			c.fail(at+".node", "names no valid node of the body: %q", r.Node)
			continue
		}
		s, why, ok := schemaAt(c.outputsOf(t), splitPath(r.Path))
		if !ok {
			c.fail(at+".path", "%s: %s", r, why)
			continue
		}
		out = append(out, collectSpec{name: name, idx: t.index, path: splitPath(r.Path)})
		info.spec.outputs = append(info.spec.outputs, Param{Name: name, Schema: ArrayOf(s)})
	}
	return out
}

// loopRunner runs a loop node.
type loopRunner struct {
	mode    string
	limit   int
	vars    []string
	collect []collectSpec
}

func (l *loopRunner) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	items, _ := in["items"].([]any)
	n := -1 // infinite
	switch l.mode {
	case "array":
		n = len(items)
	case "count":
		c, _ := in["count"].(int64)
		n = int(max(c, 0))
	}
	if n > l.limit {
		return nil, permanent(fmt.Errorf("%d iterations asked, more than the limit of %d", n, l.limit))
	}
	vars := &loopVars{vals: map[string]any{}}
	for _, v := range l.vars {
		vars.vals[v] = cloneValue(in[v])
	}
	collected := newCollected(l.collect, max(n, 0))
	path := joinPath(x.f.path, x.pn.id)
	for i := 0; n < 0 || i < n; i++ {
		if i >= l.limit {
			return nil, permanent(fmt.Errorf("ran %d iterations without a break; raise config.max_iterations or fix the exit condition", l.limit))
		}
		fr := x.rc.newFrame(x.pn.body, x.f, path, i)
		fr.loop = vars
		if i < len(items) {
			fr.item = items[i]
		}
		if err := x.pn.body.invoke(ctx, fr); err != nil {
			return nil, bodyError(ctx, fr, fmt.Sprintf("iteration %d", i), err)
		}
		sig := fr.loopSignal()
		if sig == signalNone {
			collected.add(fr, i)
		}
		if sig == signalBreak {
			break
		}
	}
	out := collected.outputs()
	vars.mu.Lock()
	maps.Copy(out, vars.vals)
	vars.mu.Unlock()
	return out, nil
}

// bodyError explains why an iteration or item failed: the node that failed
// in it, or the end of the run.
func bodyError(ctx context.Context, fr *frame, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	fr.mu.Lock()
	inner := fr.failure
	fr.mu.Unlock()
	if inner != nil {
		err = inner
	}
	return fmt.Errorf("%s: %w", what, err)
}

func joinPath(parent, id string) string {
	if parent == "" {
		return id
	}
	return parent + "/" + id
}

// collected gathers body outputs into arrays, in iteration order.
type collected struct {
	specs []collectSpec
	vals  map[string][]any
}

func newCollected(specs []collectSpec, n int) *collected {
	c := &collected{specs: specs, vals: map[string][]any{}}
	for _, s := range specs {
		c.vals[s.name] = make([]any, 0, n)
	}
	return c
}

func (c *collected) add(fr *frame, _ int) {
	for _, s := range c.specs {
		c.vals[s.name] = append(c.vals[s.name], fr.resolveRef(boundRef{idx: s.idx, path: s.path}))
	}
}

func (c *collected) outputs() map[string]any {
	out := make(map[string]any, len(c.vals))
	for k, v := range c.vals {
		out[k] = v
	}
	return out
}
