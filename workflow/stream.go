package workflow

import (
	"context"
	"strings"
	"sync"
)

// Streaming text through. In a streamed run an llm node whose text an end
// or message node shows (see linkStreams) writes its text, as the model
// generates it, into a textPipe. When it starts, a renderer for each such
// sink begins emitting the sink's template: literal text at once, the
// llm's text as it comes, and the other placeholders once the sink node
// itself runs and its inputs are known. The sink node then waits for its
// renderer and marks its message final.

// textPipe carries the pieces of one llm node's text to any number of
// readers.
type textPipe struct {
	mu     sync.Mutex
	chunks []string
	closed bool
	failed bool
	wake   chan struct{}
}

func newTextPipe() *textPipe { return &textPipe{wake: make(chan struct{})} }

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
}

// openStream returns the pipe the llm node pn writes its text into, and
// starts the renderers of its sinks; nil when pn streams nowhere or
// already tried (a retry does not stream again).
func (f *frame) openStream(pn *planNode) *textPipe {
	if !f.run.in.Stream || len(pn.streamSinks) == 0 {
		return nil
	}
	f.mu.Lock()
	if f.streams == nil {
		f.streams, f.renders = map[int]*textPipe{}, map[int]*renderer{}
	}
	p, opened := f.streams[pn.idx]
	if !opened {
		p = newTextPipe()
		f.streams[pn.idx] = p
	}
	var start []*renderer
	for _, idx := range pn.streamSinks {
		if f.renders[idx] == nil {
			r := &renderer{sink: f.plan.nodes[idx], started: make(chan struct{}), done: make(chan struct{})}
			f.renders[idx] = r
			start = append(start, r)
		}
		for _, src := range f.plan.nodes[idx].streamed {
			if f.streams[src] == nil {
				f.streams[src] = newTextPipe()
			}
		}
	}
	f.mu.Unlock()
	for _, r := range start {
		go f.render(f.run.ctx, r)
	}
	if opened {
		return nil
	}
	return p
}

// closeStream ends the pipe of an llm node that finished.
func (f *frame) closeStream(idx int, failed bool) {
	f.mu.Lock()
	p := f.streams[idx]
	f.mu.Unlock()
	if p != nil {
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
		if part.path == nil {
			f.emitPiece(r, part.text)
			continue
		}
		name := part.path[0]
		if src, ok := r.sink.streamed[name]; ok && len(part.path) == 1 && f.copyPipe(ctx, r, src) {
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
	f.mu.Lock()
	p := f.streams[src]
	f.mu.Unlock()
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
		case <-r.started:
			if _, more, done, _, _ := p.next(i); !more && !done {
				return false // the source was skipped: it never streamed
			}
		case <-ctx.Done():
			return true
		}
	}
}

func (f *frame) emitPiece(r *renderer, s string) {
	if s == "" {
		return
	}
	r.text.WriteString(s)
	f.run.emit(Event{Kind: EventMessage, NodeID: r.sink.id, Type: r.sink.typ, Title: r.sink.title, Text: s})
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
		f.run.emit(Event{Kind: EventMessage, NodeID: pn.id, Type: pn.typ, Title: pn.title, Final: true})
		return r.text.String(), nil
	}
	s := pn.spec.text.render(in)
	f.run.emit(Event{Kind: EventMessage, NodeID: pn.id, Type: pn.typ, Title: pn.title, Text: s, Final: true})
	return s, nil
}
