package workflow

import (
	"context"
	"strings"
	"sync"
)

// Streaming text through. In a streamed run an llm node whose text an end
// or message node shows (see linkStreams), directly or through a group of
// a variable_aggregate node (see linkGroupStreams), writes its text, as
// the model generates it, into a textPipe. When it starts, a renderer for
// each such sink begins emitting the sink's template: literal text at
// once, the llm's text as it comes, and the other placeholders once the
// sink node itself runs and its inputs are known. Each piece is held until
// the next one comes: the sink node waits for its renderer and sends the
// last piece as final, as Coze marks the last chunk of a message.

// textPipe carries the pieces of one llm node's text to any number of
// readers.
type textPipe struct {
	mu      sync.Mutex
	chunks  []string
	started bool          // the llm node began writing
	begun   chan struct{} // closed once started
	closed  bool
	failed  bool
	wake    chan struct{}
}

func newTextPipe() *textPipe { return &textPipe{wake: make(chan struct{}), begun: make(chan struct{})} }

// start notes that the llm node writes into the pipe; it reports false
// when the pipe is closed already.
func (p *textPipe) start() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		p.started = true
		close(p.begun)
	}
	return !p.closed
}

// hasStarted reports whether the llm node began writing.
func (p *textPipe) hasStarted() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.started
}

// write adds a piece; pieces after close are dropped.
func (p *textPipe) write(s string) {
	p.mu.Lock()
	if !p.closed {
		p.chunks = append(p.chunks, s)
		close(p.wake)
		p.wake = make(chan struct{})
	}
	p.mu.Unlock()
}

// close ends the pipe; failed says the text is incomplete.
func (p *textPipe) close(failed bool) {
	p.mu.Lock()
	if !p.closed {
		p.closed, p.failed = true, failed
		close(p.wake)
	}
	p.mu.Unlock()
}

// next returns the piece at i, or whether the pipe is done, or a channel
// that is closed when either changes.
func (p *textPipe) next(i int) (chunk string, ok, done, failed bool, wake <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i < len(p.chunks) {
		return p.chunks[i], true, false, false, nil
	}
	return "", false, p.closed, p.failed, p.wake
}

// renderer streams the text of one sink node.
type renderer struct {
	sink    *planNode
	started chan struct{} // closed once the sink runs; inputs are then set
	inputs  map[string]any
	done    chan struct{}
	text    strings.Builder
	held    string // the last piece, not emitted yet
}

// openStream returns the pipe the llm node pn writes its text into, and
// starts the renderers of its sinks; nil when pn streams nowhere. A retry
// writes on into the same pipe: what the failed attempt streamed stays.
func (f *frame) openStream(pn *planNode) *textPipe {
	if !f.run.in.Stream {
		return nil
	}
	sinks := f.shownSinks(pn)
	if len(sinks) == 0 {
		return nil
	}
	f.mu.Lock()
	if f.streams == nil {
		f.streams, f.renders = map[int]*textPipe{}, map[int]*renderer{}
	}
	p := f.pipeLocked(pn.idx)
	var start []*renderer
	for _, sink := range sinks {
		if f.renders[sink.idx] == nil {
			r := &renderer{sink: sink, started: make(chan struct{}), done: make(chan struct{})}
			f.renders[sink.idx] = r
			start = append(start, r)
		}
		f.sourcePipesLocked(sink)
	}
	f.mu.Unlock()
	for _, r := range start {
		go f.render(f.run.ctx, r)
	}
	if !p.start() {
		return nil
	}
	return p
}

// shownSinks returns the sinks of llm node pn that show a message in f:
// the end node of a sub-workflow returns its text and shows none.
func (f *frame) shownSinks(pn *planNode) []*planNode {
	var sinks []*planNode
	for _, idx := range pn.streamSinks {
		if sink := f.plan.nodes[idx]; sink.typ != "end" || f.path == "" {
			sinks = append(sinks, sink)
		}
	}
	return sinks
}

// sourcePipesLocked makes the pipes of every llm node the sink may
// stream, so that its renderer can wait on them.
func (f *frame) sourcePipesLocked(sink *planNode) {
	for _, src := range sink.streamed {
		f.pipeLocked(src)
	}
	for _, g := range sink.streamGroups {
		for _, e := range g.elems {
			if e.llm >= 0 {
				f.pipeLocked(e.llm)
			}
		}
	}
}

// pipeLocked returns the pipe of llm node idx, made if need be; f.mu is
// held.
func (f *frame) pipeLocked(idx int) *textPipe {
	p := f.streams[idx]
	if p == nil {
		p = newTextPipe()
		f.streams[idx] = p
	}
	return p
}

// pipe returns the pipe of llm node idx.
func (f *frame) pipe(idx int) *textPipe {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.streams[idx]
}

// closeStream ends the pipe of an llm node that finished.
func (f *frame) closeStream(idx int, failed bool) {
	if p := f.pipe(idx); p != nil {
		p.close(failed)
	}
}

// rendererOf returns the renderer of a sink, if one started.
func (f *frame) rendererOf(idx int) *renderer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.renders[idx]
}

// render emits the sink's template piece by piece.
func (f *frame) render(ctx context.Context, r *renderer) {
	defer close(r.done)
	for _, part := range r.sink.spec.text.parts {
		if ctx.Err() != nil {
			return
		}
		if part.path == nil {
			f.emitPiece(r, part.text)
			continue
		}
		name := part.path[0]
		if src, ok := r.sink.streamed[name]; ok && len(part.path) == 1 && f.copyPipe(ctx, r, src) {
			continue
		}
		if g, ok := r.sink.streamGroups[name]; ok && len(part.path) == 1 && f.copyGroup(ctx, r, g) {
			continue
		}
		select {
		case <-r.started:
		case <-ctx.Done():
			return
		}
		v, _ := valueAt(r.inputs[name], part.path[1:])
		f.emitPiece(r, text(v))
	}
}

// copyPipe emits the pieces of an llm node's text until its pipe closes.
// It reports false when the text did not stream completely (the llm node
// failed or was skipped); the value is then shown once the sink runs.
func (f *frame) copyPipe(ctx context.Context, r *renderer, src int) bool {
	p, started := f.pipe(src), r.started
	for i := 0; ; {
		chunk, ok, done, failed, wake := p.next(i)
		switch {
		case ok:
			f.emitPiece(r, chunk)
			i++
			continue
		case done:
			return !failed
		}
		select {
		case <-wake:
		case <-started:
			if !p.hasStarted() {
				return false // the source was skipped: it never streamed
			}
			started = nil // the source ran: its pipe closes
		case <-ctx.Done():
			return true
		}
	}
}

// emitPiece emits the piece held so far and holds s.
func (f *frame) emitPiece(r *renderer, s string) {
	if s == "" {
		return
	}
	r.text.WriteString(s)
	if r.held != "" {
		f.run.emit(Event{Kind: EventMessage, NodeID: r.sink.id, Type: r.sink.typ, Title: r.sink.title, Text: r.held})
	}
	r.held = s
}

// showText emits the message of a sink node: through its renderer when
// one streamed it, otherwise whole. It returns the full text.
func (x *nodeCtx) showText(ctx context.Context, in map[string]any) (string, error) {
	pn, f := x.pn, x.f
	if r := f.rendererOf(pn.idx); r != nil {
		r.inputs = in
		close(r.started)
		select {
		case <-r.done:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		f.run.emit(Event{Kind: EventMessage, NodeID: pn.id, Type: pn.typ, Title: pn.title, Text: r.held, Final: true})
		return r.text.String(), nil
	}
	s := pn.spec.text.render(in)
	f.run.emit(Event{Kind: EventMessage, NodeID: pn.id, Type: pn.typ, Title: pn.title, Text: s, Final: true})
	return s, nil
}
