package workflow

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cloudwego/eino/compose"
)

// Compiled is a checked workflow compiled onto eino, ready to run any
// number of times concurrently.
type Compiled struct {
	key     string
	plan    *graphPlan
	params  []Param
	outputs []Param
	text    bool
	nodes   int
	asks    bool
	waits   bool
	coze    bool // Coze Studio's conversions (Definition.Compat)
}

// Key returns the cache key the workflow was compiled under.
func (c *Compiled) Key() string { return c.key }

// Parameters returns the start node's parameters: what a run takes.
func (c *Compiled) Parameters() []Param { return slices.Clone(c.params) }

// Outputs returns what the end node returns.
func (c *Compiled) Outputs() []Param { return slices.Clone(c.outputs) }

// ReturnsText reports whether the end node returns text (from a template)
// rather than variables.
func (c *Compiled) ReturnsText() bool { return c.text }

// graphPlan is one compiled graph: the runnable eino workflow and the
// nodes its lambdas run.
type graphPlan struct {
	runnable compose.Runnable[map[string]any, map[string]any]
	nodes    []*planNode
	owner    *planNode
	// line is set when the whole graph is one chain: it then runs without
	// eino's scheduler, which has nothing to schedule (a loop body of a few
	// nodes, a workflow without branches or parallel paths).
	line chain
}

// invoke runs the graph in frame f.
func (p *graphPlan) invoke(ctx context.Context, f *frame) error {
	ctx = withFrame(ctx, f)
	if p.line != nil {
		_, err := p.line.lambda(ctx, nil)
		return err
	}
	_, err := p.runnable.Invoke(ctx, map[string]any{})
	return err
}

// planNode is a node ready to run.
type planNode struct {
	id, typ, title string
	idx            int
	spec           *nodeSpec
	inputs         []boundInput
	timeout        time.Duration
	retries        int
	backoff        time.Duration
	onError        string
	defaultOut     map[string]any
	outputs        []Param // declared, checked after each run
	branching      bool
	targets        map[string]map[string]bool // port → next nodes
	body           *graphPlan
	sub            *Compiled
	vars           []Param
	// streamSinks are the end and message nodes that stream this llm
	// node's text; streamed marks the inputs of a sink fed that way.
	streamSinks  []int
	streamed     map[string]int          // input name → source node index
	streamGroups map[string]*streamGroup // input name → the aggregate group it shows
}

// chain is nodes that run one after the other with nothing else between
// them: each the only successor of the one before, which does not branch,
// and its only predecessor. A chain is one eino node: eino's cost is per
// node, so a workflow that is mostly a line runs several times faster.
type chain []*planNode

func (ch chain) head() *planNode { return ch[0] }
func (ch chain) tail() *planNode { return ch[len(ch)-1] }

// lambda runs the chain's nodes in order, in the frame the context
// carries. Data travels through the frame, not through eino: the output
// of the last node only tells a branch which port it took.
func (ch chain) lambda(ctx context.Context, _ map[string]any) (map[string]any, error) {
	f := frameFrom(ctx)
	var out map[string]any
	for _, pn := range ch {
		var err error
		if out, err = f.exec(ctx, pn); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// taskState is the eino graph's state; only its pre-handler is used.
type taskState struct{}

func newTaskState(context.Context) *taskState { return &taskState{} }

// countStart counts a chain as running when eino submits it, before it
// starts on a goroutine of its own: an interrupt on another branch then
// waits for it (runCtx.running), however late that goroutine starts.
func countStart(ctx context.Context, in map[string]any, _ *taskState) (map[string]any, error) {
	frameFrom(ctx).run.running.start()
	return in, nil
}

// task runs a chain eino submitted (countStart counted it).
func (ch chain) task(ctx context.Context, in map[string]any) (map[string]any, error) {
	defer frameFrom(ctx).run.running.done()
	return ch.lambda(ctx, in)
}

// chainsOf splits a graph's nodes into chains.
func chainsOf(g *graphInfo, plan *graphPlan) []chain {
	next := func(info *nodeInfo) *nodeInfo {
		out := g.out[info.node.ID]
		if plan.nodes[info.index].branching || len(out) != 1 {
			return nil
		}
		t := g.byID[out[0].To]
		if len(g.in[t.node.ID]) != 1 {
			return nil
		}
		return t
	}
	merged := map[string]bool{}
	for _, info := range g.nodes {
		if t := next(info); t != nil {
			merged[t.node.ID] = true
		}
	}
	var chains []chain
	for _, info := range g.nodes {
		if merged[info.node.ID] {
			continue
		}
		ch := chain{plan.nodes[info.index]}
		for t := next(info); t != nil; t = next(t) {
			ch = append(ch, plan.nodes[t.index])
		}
		chains = append(chains, ch)
	}
	return chains
}

// einoKey is a node's key in the eino graph: node ids may be "start" or
// "end", which eino reserves.
func einoKey(id string) string { return "n:" + id }

// portKey is the key under which a branching node's lambda tells the
// branch which port it took.
const portKey = "\x00port"

func (e *Engine) compile(ctx context.Context, key string, def *Definition, opts CompileOptions, stack []string) (*Compiled, error) {
	g, err := e.check(ctx, def, opts, stack, true)
	if err != nil {
		return nil, err
	}
	plan, err := e.buildGraph(ctx, g, key)
	if err != nil {
		return nil, err
	}
	c := &Compiled{key: key, plan: plan, params: g.start.spec.outputs, nodes: len(g.nodes), asks: plan.asks(),
		waits: plan.waits(), coze: def.Compat == CompatCoze}
	end := plan.nodes[g.end.index]
	c.outputs, c.text = end.outputs, end.spec.text != nil
	return c, nil
}

// buildGraph compiles a checked graph, bodies first.
func (e *Engine) buildGraph(ctx context.Context, g *graphInfo, name string) (*graphPlan, error) {
	plan := &graphPlan{nodes: make([]*planNode, len(g.nodes))}
	for i, info := range g.nodes {
		pn := e.newPlanNode(info)
		if info.body != nil {
			body, err := e.buildGraph(ctx, info.body, name+"/"+info.node.ID)
			if err != nil {
				return nil, err
			}
			body.owner, pn.body = pn, body
		}
		plan.nodes[i] = pn
	}
	linkStreams(g, plan)
	linkGroupStreams(g, plan)
	wf := compose.NewWorkflow[map[string]any, map[string]any](compose.WithGenLocalState(newTaskState))
	chains := chainsOf(g, plan)
	heads := make(map[string]*compose.WorkflowNode, len(chains))
	for _, ch := range chains {
		heads[ch.head().id] = wf.AddLambdaNode(einoKey(ch.head().id), compose.InvokableLambda(ch.task), compose.WithNodeName(ch.head().id),
			compose.WithStatePreHandler(countStart))
	}
	for _, info := range g.entries {
		heads[info.node.ID].AddInput(compose.START)
	}
	for _, ch := range chains {
		tail := ch.tail()
		edges := g.out[tail.id]
		switch {
		case len(edges) == 0:
			wf.End().AddDependency(einoKey(ch.head().id))
		case !tail.branching:
			for _, edge := range edges {
				heads[edge.To].AddDependency(einoKey(ch.head().id))
			}
		default:
			ends := map[string]bool{}
			for _, edge := range edges {
				if tail.targets[edge.FromPort] == nil {
					tail.targets[edge.FromPort] = map[string]bool{}
				}
				tail.targets[edge.FromPort][einoKey(edge.To)], ends[einoKey(edge.To)] = true, true
			}
			wf.AddBranch(einoKey(ch.head().id), compose.NewGraphMultiBranch(tail.choose, ends))
		}
	}
	r, err := wf.Compile(ctx, compose.WithGraphName(name))
	if err != nil {
		return nil, fmt.Errorf("compile workflow %s onto eino: %w", name, err)
	}
	plan.runnable = r
	if len(chains) == 1 {
		plan.line = chains[0]
	}
	return plan, nil
}

func (e *Engine) newPlanNode(info *nodeInfo) *planNode {
	n := info.node
	pn := &planNode{id: n.ID, typ: n.Type, title: n.Title, idx: info.index, spec: info.spec, inputs: info.bound,
		timeout: e.limits.NodeTimeout, backoff: 200 * time.Millisecond, onError: onError(n),
		outputs: info.spec.outputs, sub: info.sub, vars: info.vars}
	if n.Type == "code" {
		pn.timeout = e.limits.CodeTimeout
	}
	if s := n.Settings; s != nil {
		if s.TimeoutMS > 0 {
			pn.timeout = time.Duration(s.TimeoutMS) * time.Millisecond
		}
		if s.RetryBackoffMS > 0 {
			pn.backoff = time.Duration(s.RetryBackoffMS) * time.Millisecond
		}
		pn.retries, pn.defaultOut = s.Retries, s.DefaultOutput
	}
	pn.branching = len(info.spec.ports) > 0 || pn.onError == OnErrorBranch
	if pn.branching {
		pn.targets = map[string]map[string]bool{}
	}
	return pn
}

// choose is the branch condition of a branching node: the nodes of the
// port its lambda took.
func (pn *planNode) choose(_ context.Context, out map[string]any) (map[string]bool, error) {
	port, _ := out[portKey].(string)
	if next, ok := pn.targets[port]; ok {
		return next, nil
	}
	return nil, fmt.Errorf("node %s took port %q, which has no edge", pn.id, port)
}

// linkStreams finds the end and message nodes whose text a streamed run
// can stream while an llm node generates it: a placeholder of the text
// reads the llm node's text output through an input, and the llm node
// leads to the sink by a plain edge, so the sink runs once it starts.
func linkStreams(g *graphInfo, plan *graphPlan) {
	for _, info := range g.nodes {
		sink := plan.nodes[info.index]
		if info.spec == nil || info.spec.text == nil {
			continue
		}
		for _, b := range info.bound {
			if b.kind != inRef || b.ref.up != 0 || b.ref.idx < 0 || len(b.ref.path) != 1 {
				continue
			}
			src := plan.nodes[b.ref.idx]
			if src.typ != "llm" || src.onError == OnErrorBranch || !llmStreams(src.spec, b.ref.path[0]) || !plainEdge(g, src.id, sink.id) {
				continue
			}
			if sink.streamed == nil {
				sink.streamed = map[string]int{}
			}
			sink.streamed[b.name] = src.idx
			if !slices.Contains(src.streamSinks, sink.idx) {
				src.streamSinks = append(src.streamSinks, sink.idx)
			}
		}
	}
}

func plainEdge(g *graphInfo, from, to string) bool {
	return slices.ContainsFunc(g.out[from], func(e Edge) bool { return e.To == to && e.FromPort == "" })
}
