package workflow

import (
	"slices"
)

// Streaming through a variable_aggregate node. A sink showing a group of
// an aggregate streams the group's value when it is the text of an llm
// node: as in a plain run, the group's value is its first input that is
// not null, so the renderer goes through the inputs in order, passing
// over those that are null or whose node cannot run any more (a branch
// the run did not take), until it finds an llm node that started (its
// text streams) or any other value (shown once the sink runs). An input
// it cannot decide yet, a node that may still run, makes it wait.

// streamGroup is a group of an aggregate that a sink shows.
type streamGroup struct {
	elems []groupElem
	preds [][]predEdge // by node index: the edges into the node
}

// groupElem is one input of the group, in order.
type groupElem struct {
	in  *boundInput // the aggregate's input
	llm int         // the llm node whose text the input is and which streams, or -1
}

// predEdge is an edge into a node: from which node, through which port.
type predEdge struct {
	from int
	port string
}

// linkGroupStreams finds the end and message nodes whose text shows a
// group of an aggregate, through a plain edge from the aggregate, when
// some input of the group is the text of an llm node leading to the
// aggregate by a plain edge; those llm nodes stream into the sink.
func linkGroupStreams(g *graphInfo, plan *graphPlan) {
	var preds [][]predEdge
	for _, info := range g.nodes {
		sink := plan.nodes[info.index]
		if info.spec == nil || info.spec.text == nil {
			continue
		}
		for _, b := range info.bound {
			grp := groupShown(g, plan, sink, b)
			if grp == nil {
				continue
			}
			if preds == nil {
				preds = predsOf(g)
			}
			grp.preds = preds
			if sink.streamGroups == nil {
				sink.streamGroups = map[string]*streamGroup{}
			}
			sink.streamGroups[b.name] = grp
			for _, e := range grp.elems {
				if e.llm >= 0 {
					addSink(plan.nodes[e.llm], sink)
				}
			}
		}
	}
}

// addSink notes that the llm node src streams into sink.
func addSink(src, sink *planNode) {
	if !slices.Contains(src.streamSinks, sink.idx) {
		src.streamSinks = append(src.streamSinks, sink.idx)
	}
}

// groupShown returns the group the sink's input b shows, if it may
// stream.
func groupShown(g *graphInfo, plan *graphPlan, sink *planNode, b boundInput) *streamGroup {
	if b.kind != inRef || b.ref.up != 0 || b.ref.idx < 0 || len(b.ref.path) != 1 {
		return nil
	}
	agg := plan.nodes[b.ref.idx]
	ar, ok := agg.spec.runner.(aggregateRunner)
	if !ok || !plainEdge(g, agg.id, sink.id) {
		return nil
	}
	grp, streams := &streamGroup{}, false
	for _, name := range ar.groups[b.ref.path[0]] {
		i := slices.IndexFunc(agg.inputs, func(in boundInput) bool { return in.name == name })
		if i < 0 {
			return nil
		}
		e := groupElem{in: &agg.inputs[i], llm: streamingLLM(g, plan, agg, agg.inputs[i])}
		streams = streams || e.llm >= 0
		grp.elems = append(grp.elems, e)
	}
	if !streams {
		return nil
	}
	return grp
}

// streamingLLM returns the llm node whose text the aggregate's input in
// is, when it can stream: -1 otherwise.
func streamingLLM(g *graphInfo, plan *graphPlan, agg *planNode, in boundInput) int {
	if in.kind != inRef || in.ref.up != 0 || in.ref.idx < 0 || len(in.ref.path) != 1 {
		return -1
	}
	src := plan.nodes[in.ref.idx]
	if src.typ != "llm" || src.onError == OnErrorBranch || !llmStreams(src.spec, in.ref.path[0]) || !plainEdge(g, src.id, agg.id) {
		return -1
	}
	return src.idx
}

// predsOf lists the edges into each node of g; edges from the owner of a
// body do not count (its entries always run).
func predsOf(g *graphInfo) [][]predEdge {
	preds := make([][]predEdge, len(g.nodes))
	for _, info := range g.nodes {
		for _, e := range g.in[info.node.ID] {
			if from, ok := g.byID[e.From]; ok {
				preds[info.index] = append(preds[info.index], predEdge{from: from.index, port: e.FromPort})
			}
		}
	}
	return preds
}
