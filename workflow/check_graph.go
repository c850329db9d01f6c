package workflow

import (
	"slices"
	"strconv"
	"strings"
)

// graphInfo is a checked graph: the top level of a workflow or the body of
// a loop or batch node.
type graphInfo struct {
	def       *Definition
	owner     *nodeInfo // the loop or batch node; nil at the top level
	parent    *graphInfo
	depth     int
	nodes     []*nodeInfo
	byID      map[string]*nodeInfo
	out       map[string][]Edge // edges by source; the owner's id keys the entries
	in        map[string][]Edge
	order     []*nodeInfo // topological
	ancestors map[string]map[string]bool
	start     *nodeInfo
	end       *nodeInfo
	entries   []*nodeInfo
}

// top reports whether g is the top level of a workflow.
func (g *graphInfo) top() bool { return g.owner == nil }

// edgeField names edge i of g.
func (g *graphInfo) edgeField(i int) string {
	if g.top() {
		return "edges[" + strconv.Itoa(i) + "]"
	}
	return nodeField(g.owner.node, "body.edges["+strconv.Itoa(i)+"]")
}

// checkGraph checks def and every body in it, typing every input.
func (c *checker) checkGraph(def *Definition, owner *nodeInfo, parent *graphInfo) *graphInfo {
	g := &graphInfo{def: def, owner: owner, parent: parent, byID: map[string]*nodeInfo{},
		out: map[string][]Edge{}, in: map[string][]Edge{}}
	if parent != nil {
		g.depth = parent.depth + 1
	}
	c.collectNodes(g)
	if !c.checkEdges(g) {
		return g
	}
	if g.top() && !c.checkStartEnd(g) {
		return g
	}
	if !g.top() && !c.checkEntries(g) {
		return g
	}
	if !c.sortGraph(g) {
		return g
	}
	if !c.checkReach(g) {
		return g
	}
	c.computeAncestors(g)
	for _, info := range g.order {
		c.typeNode(info)
	}
	return g
}

// collectNodes checks ids and types and each node's own config.
func (c *checker) collectNodes(g *graphInfo) {
	prev := c.cur
	c.cur = g
	defer func() { c.cur = prev }()
	for i := range g.def.Nodes {
		n := &g.def.Nodes[i]
		at := "nodes[" + strconv.Itoa(i) + "]"
		if !nodeIDPattern.MatchString(n.ID) {
			c.fail(at+".id", "must start with a letter and hold letters, digits, _ or - (at most 64); got %q", n.ID)
			continue
		}
		if _, dup := c.all[n.ID]; dup {
			c.fail(nodeField(n, "id"), "is used by two nodes; ids must be unique in the workflow, bodies included")
			continue
		}
		c.count++
		info := &nodeInfo{node: n, graph: g, index: len(g.nodes)}
		c.all[n.ID] = info
		g.nodes = append(g.nodes, info)
		g.byID[n.ID] = info
		k, ok := c.eng.catalog.kinds[n.Type]
		if !ok {
			c.fail(nodeField(n, "type"), "unknown node type %q; known types: %s", n.Type, c.eng.catalog.names())
			continue
		}
		if n.Body != nil && n.Type != "loop" && n.Type != "batch" {
			c.fail(nodeField(n, "body"), "only loop and batch nodes have a body")
		}
		c.checkSettings(n)
		info.spec = k.check(c, n)
	}
	if c.count > c.eng.limits.MaxNodes {
		c.fail("nodes", "a workflow may have at most %d nodes (bodies included), this one has %d", c.eng.limits.MaxNodes, c.count)
	}
}

// ports returns the ports edges may leave n from.
func ports(info *nodeInfo) []string {
	var out []string
	if info.spec != nil {
		out = append(out, info.spec.ports...)
	}
	if onError(info.node) == OnErrorBranch {
		out = append(out, ErrorPort)
	}
	return out
}

// checkEdges checks that every edge joins two nodes of the graph through
// a port the source has, and indexes them.
func (c *checker) checkEdges(g *graphInfo) bool {
	ok := true
	for i, e := range g.def.Edges {
		at := g.edgeField(i)
		from, fromOwner := g.byID[e.From], !g.top() && e.From == g.owner.node.ID
		switch {
		case from == nil && !fromOwner:
			c.fail(at+".from", "names no node of this graph: %q", e.From)
			ok = false
			continue
		case g.byID[e.To] == nil:
			hint := ""
			if !g.top() && e.To == g.owner.node.ID {
				hint = "; nodes without a successor end the iteration, so no edge goes back to the loop"
			}
			c.fail(at+".to", "names no node of this graph: %q%s", e.To, hint)
			ok = false
			continue
		}
		if from != nil && !c.checkPort(at, from, e.FromPort) {
			ok = false
			continue
		}
		if fromOwner && e.FromPort != "" {
			c.fail(at+".from_port", "must be empty on an edge from the loop to its body")
		}
		g.out[e.From] = append(g.out[e.From], e)
		g.in[e.To] = append(g.in[e.To], e)
	}
	for _, info := range g.nodes {
		for _, p := range ports(info) {
			if !slices.ContainsFunc(g.out[info.node.ID], func(e Edge) bool { return e.FromPort == p }) {
				c.fail(nodeField(info.node, "ports."+p), "port %q is not connected; add an edge from it", p)
				ok = false
			}
		}
	}
	return ok
}

func (c *checker) checkPort(at string, from *nodeInfo, port string) bool {
	have := ports(from)
	branching := from.spec != nil && len(from.spec.ports) > 0
	switch {
	case port == "" && !branching:
		return true
	case port != "" && slices.Contains(have, port):
		return true
	case port == "":
		c.fail(at+".from_port", "is required: node %s branches; use one of %s", from.node.ID, strings.Join(have, ", "))
	case len(have) == 0:
		c.fail(at+".from_port", "node %s has no port %q; only branching nodes and nodes with on_error \"branch\" have ports", from.node.ID, port)
	default:
		c.fail(at+".from_port", "node %s has no port %q; its ports: %s", from.node.ID, port, strings.Join(have, ", "))
	}
	return false
}

// checkStartEnd finds the one start and one end node of the top level.
func (c *checker) checkStartEnd(g *graphInfo) bool {
	for _, info := range g.nodes {
		switch info.node.Type {
		case "start":
			if g.start != nil {
				c.fail(nodeField(info.node, "type"), "a workflow has one start node; %s is another", g.start.node.ID)
			}
			g.start = info
		case "end":
			if g.end != nil {
				c.fail(nodeField(info.node, "type"), "a workflow has one end node; %s is another", g.end.node.ID)
			}
			g.end = info
		}
	}
	if g.start == nil {
		c.fail("nodes", "there is no start node; add one of type \"start\"")
	}
	if g.end == nil {
		c.fail("nodes", "there is no end node; add one of type \"end\"")
	}
	if g.start == nil || g.end == nil {
		return false
	}
	if len(g.in[g.start.node.ID]) > 0 {
		c.fail(nodeField(g.start.node, ""), "the start node cannot have incoming edges")
	}
	if len(g.out[g.end.node.ID]) > 0 {
		c.fail(nodeField(g.end.node, ""), "the end node cannot have outgoing edges")
	}
	g.entries = []*nodeInfo{g.start}
	return len(c.problems) == 0
}

// checkEntries finds the nodes an iteration starts with.
func (c *checker) checkEntries(g *graphInfo) bool {
	for _, info := range g.nodes {
		if t := info.node.Type; t == "start" || t == "end" {
			c.fail(nodeField(info.node, "type"), "a %s node cannot be inside a loop or batch body", t)
			return false
		}
	}
	for _, e := range g.out[g.owner.node.ID] {
		g.entries = append(g.entries, g.byID[e.To])
	}
	if len(g.entries) == 0 {
		c.fail(nodeField(g.owner.node, "body.edges"), "no edge starts the iteration; add an edge from %q to the first node of the body", g.owner.node.ID)
		return false
	}
	return true
}

// sortGraph orders the nodes so that every node comes after its
// predecessors, reporting the nodes of any cycle.
func (c *checker) sortGraph(g *graphInfo) bool {
	indeg := map[string]int{}
	for _, info := range g.nodes {
		for _, e := range g.in[info.node.ID] {
			if g.byID[e.From] != nil {
				indeg[info.node.ID]++
			}
		}
	}
	var queue []*nodeInfo
	for _, info := range g.nodes {
		if indeg[info.node.ID] == 0 {
			queue = append(queue, info)
		}
	}
	for len(queue) > 0 {
		info := queue[0]
		queue = queue[1:]
		g.order = append(g.order, info)
		for _, e := range g.out[info.node.ID] {
			if indeg[e.To]--; indeg[e.To] == 0 {
				queue = append(queue, g.byID[e.To])
			}
		}
	}
	if len(g.order) == len(g.nodes) {
		return true
	}
	var cyclic []string
	for _, info := range g.nodes {
		if indeg[info.node.ID] > 0 && onCycle(g, info.node.ID) {
			cyclic = append(cyclic, info.node.ID)
		}
	}
	field := "edges"
	if !g.top() {
		field = nodeField(g.owner.node, "body.edges")
	}
	c.fail(field, "the edges form a cycle through %s; repeat work with a loop node instead", strings.Join(cyclic, ", "))
	return false
}

// onCycle reports whether a path of edges leads from id back to it.
func onCycle(g *graphInfo, id string) bool {
	seen := map[string]bool{}
	stack := []string{id}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range g.out[cur] {
			if e.To == id {
				return true
			}
			if !seen[e.To] {
				seen[e.To] = true
				stack = append(stack, e.To)
			}
		}
	}
	return false
}
