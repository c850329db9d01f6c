package workflow

// checkReach reports nodes the run can never reach and, at the top level,
// nodes from which the end node cannot be reached.
func (c *checker) checkReach(g *graphInfo) bool {
	seen := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		for _, e := range g.out[id] {
			walk(e.To)
		}
	}
	for _, info := range g.entries {
		walk(info.node.ID)
	}
	ok := true
	for _, info := range g.nodes {
		if !seen[info.node.ID] {
			from := "the start node"
			if !g.top() {
				from = "the start of the iteration"
			}
			c.fail(nodeField(info.node, ""), "is unreachable: no path leads to it from %s; connect it with an edge or remove it", from)
			ok = false
		}
	}
	if !g.top() || !ok {
		return ok
	}
	back := map[string]bool{}
	var walkBack func(id string)
	walkBack = func(id string) {
		if back[id] {
			return
		}
		back[id] = true
		for _, e := range g.in[id] {
			walkBack(e.From)
		}
	}
	walkBack(g.end.node.ID)
	for _, info := range g.nodes {
		if !back[info.node.ID] {
			c.fail(nodeField(info.node, ""), "never leads to the end node; add an edge from it toward the end")
			ok = false
		}
	}
	return ok
}

// computeAncestors records, for every node, the nodes that come before it
// on some path: each has run when it runs, or was skipped on a branch the
// run did not take (its outputs then read as null).
func (c *checker) computeAncestors(g *graphInfo) {
	g.ancestors = make(map[string]map[string]bool, len(g.nodes))
	for _, info := range g.order {
		anc := map[string]bool{}
		for _, e := range g.in[info.node.ID] {
			if g.byID[e.From] == nil {
				continue
			}
			anc[e.From] = true
			for a := range g.ancestors[e.From] {
				anc[a] = true
			}
		}
		g.ancestors[info.node.ID] = anc
	}
}
