package workflow

import (
	"context"
	"reflect"
)

// Choosing, while a streamed run goes on, which input of an aggregate's
// group a sink streams (see stream_aggregate.go).

// elemState is what a renderer knows of a group's input.
type elemState uint8

const (
	elemUnknown elemState = iota // its node may still run
	elemNull                     // null, or its node cannot run: the next input is tried
	elemStream                   // an llm node that started: the group's value streams
	elemValue                    // another value: shown once the sink runs
)

// copyGroup streams the group's value when it is the text of an llm node
// that streams. It reports false when the value is to be shown once the
// sink runs.
func (f *frame) copyGroup(ctx context.Context, r *renderer, g *streamGroup) bool {
	for sinkRan := false; ; {
		src, waits, decided := f.pickStream(g)
		if decided {
			return src >= 0 && f.copyPipe(ctx, r, src)
		}
		if sinkRan {
			return false
		}
		switch waitAny(ctx, r.started, waits) {
		case waitSink:
			sinkRan = true // the aggregate ran: one more look decides
		case waitEnded:
			return false
		}
	}
}

// pickStream goes through the group's inputs: it returns the llm node
// to stream (or -1: the value is shown once the sink runs) and whether
// that is decided; if not, waits are closed when it may be.
func (f *frame) pickStream(g *streamGroup) (src int, waits []<-chan struct{}, decided bool) {
	memo := map[int]bool{}
	for _, e := range g.elems {
		st, w := f.elemState(g, e, memo)
		switch st {
		case elemNull:
			continue
		case elemStream:
			return e.llm, nil, true
		case elemValue:
			return -1, nil, true
		}
		return -1, w, false
	}
	return -1, nil, true
}

// elemState tells what is known of one input of the group; when it is
// unknown it returns what to wait on.
func (f *frame) elemState(g *streamGroup, e groupElem, memo map[int]bool) (elemState, []<-chan struct{}) {
	if e.llm >= 0 && f.pipe(e.llm).hasStarted() {
		return elemStream, nil
	}
	b := e.in
	switch {
	case b.kind == inLiteral:
		return nullOr(b.value), nil
	case b.kind != inRef:
		return elemValue, nil // variables, objects, templates: shown once the sink runs
	case b.ref.up != 0 || b.ref.idx < 0 || f.hasRun(b.ref.idx):
		return nullOr(f.resolveRef(b.ref)), nil
	}
	var waits []<-chan struct{}
	if f.dead(g.preds, b.ref.idx, memo, &waits) {
		return elemNull, nil
	}
	if e.llm >= 0 {
		waits = append(waits, f.pipe(e.llm).begun)
	}
	return elemUnknown, waits
}

func nullOr(v any) elemState {
	if v == nil {
		return elemNull
	}
	return elemValue
}

// dead reports whether node idx cannot run any more in f: it has not run
// and every edge into it comes from a node that cannot run or that took
// another port. Nodes that may still run add the channel closed when they
// do to waits.
func (f *frame) dead(preds [][]predEdge, idx int, memo map[int]bool, waits *[]<-chan struct{}) bool {
	if d, ok := memo[idx]; ok {
		return d
	}
	memo[idx] = false
	if f.hasRun(idx) {
		return false
	}
	d := len(preds[idx]) > 0
	for _, e := range preds[idx] {
		if !f.edgeDead(preds, e, memo, waits) {
			d = false
			break
		}
	}
	memo[idx] = d
	if !d {
		*waits = append(*waits, f.outputWait(idx))
	}
	return d
}

// edgeDead reports whether edge e will never lead to its node.
func (f *frame) edgeDead(preds [][]predEdge, e predEdge, memo map[int]bool, waits *[]<-chan struct{}) bool {
	if !f.hasRun(e.from) {
		return f.dead(preds, e.from, memo, waits)
	}
	from := f.plan.nodes[e.from]
	if !from.branching {
		return false
	}
	port, known := f.portTaken(from)
	return known && port != e.port
}

// portTaken returns the port a branching node that ran took.
func (f *frame) portTaken(pn *planNode) (string, bool) {
	rc, key := f.run, f.nodeKey(pn)
	rc.mu.Lock()
	d, ok := rc.done[key]
	rc.mu.Unlock()
	if !ok {
		d, ok = rc.replayed(key)
	}
	if ok {
		return d.Port, true
	}
	if pn.onError == OnErrorBranch {
		return ErrorPort, true // it failed: only successes are kept
	}
	return "", false
}

// outputWait returns a channel closed once node idx has run in f.
func (f *frame) outputWait(idx int) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := f.waits[idx]
	if ch == nil {
		ch = make(chan struct{})
		if f.ran[idx] {
			close(ch)
			return ch
		}
		if f.waits == nil {
			f.waits = map[int]chan struct{}{}
		}
		f.waits[idx] = ch
	}
	return ch
}

// What ended a wait of waitAny.
const (
	waitChanged = iota // one of the waits
	waitSink           // the sink started
	waitEnded          // the run ended
)

// waitAny waits until one of waits is closed, the sink starts or the run
// ends.
func waitAny(ctx context.Context, started <-chan struct{}, waits []<-chan struct{}) int {
	cases := make([]reflect.SelectCase, 0, len(waits)+2)
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(started)})
	for _, w := range waits {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w)})
	}
	switch i, _, _ := reflect.Select(cases); i {
	case 0:
		return waitEnded
	case 1:
		return waitSink
	}
	return waitChanged
}
