package workflow

// CanInterrupt reports whether a run may stop to wait for an answer: a
// question or input node is in the workflow, in a loop or batch body, or
// in a sub-workflow it runs. A run of a workflow that cannot interrupt
// always runs to its end in one go.
func (c *Compiled) CanInterrupt() bool { return c.asks }

// MayWait reports whether a run may wait on something outside the engine
// or run code: a model, tool, table, HTTP, bot variable or code node is
// in the workflow, its bodies or its sub-workflows. A run of a workflow
// that may not runs in the engine alone, in microseconds to milliseconds.
func (c *Compiled) MayWait() bool { return c.waits }

// waits reports whether a node that may take long is in the graph, its
// bodies or its sub-workflows. Loop, batch and sub-workflow nodes wait
// only as long as what they run.
func (p *graphPlan) waits() bool {
	for _, pn := range p.nodes {
		switch {
		case pn.body != nil || pn.sub != nil:
			if pn.body != nil && pn.body.waits() || pn.sub != nil && pn.sub.waits {
				return true
			}
		case pn.spec != nil && (pn.spec.blocking || pn.spec.long):
			return true
		}
	}
	return false
}

// asks reports whether a question or input node is in the graph, its
// bodies or its sub-workflows.
func (p *graphPlan) asks() bool {
	for _, pn := range p.nodes {
		if pn.spec != nil && pn.spec.asks || pn.body != nil && pn.body.asks() || pn.sub != nil && pn.sub.asks {
			return true
		}
	}
	return false
}
