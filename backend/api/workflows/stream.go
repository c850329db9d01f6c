package workflows

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol/sse"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// pingEvery is how often a stream sends PING while nothing else happens.
const pingEvery = 10 * time.Second

// StreamRun answers POST /v1/workflow/stream_run with Coze's workflow
// stream: Message events (message nodes, the end node), then Error when
// the run failed or Interrupt when a question stopped it, then Done; PING keeps an idle stream alive. Each event
// has id:, event: and data: lines, in that order. Errors found before the
// run starts are JSON answers. The run goes on when the client leaves,
// and is recorded.
func (h Coze) StreamRun(ctx context.Context, c *app.RequestContext) error {
	var req runRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	in, err := req.toApp(workflow.RunStream)
	if err != nil {
		return err
	}
	if in.Mode == workflow.RunAsync {
		return errs.Invalid("is_async", "a streamed run is not asynchronous; use /v1/workflow/run for that")
	}
	pr, err := h.Svc.Prepare(ctx, httpx.Caller(c), in)
	if err != nil {
		return err
	}
	q := NewEventQueue()
	go func() {
		out, err := pr.Execute(context.WithoutCancel(ctx), q)
		q.Finish(out, err)
	}()
	writeStream(ctx, c, q)
	return nil
}

// StreamResume answers POST /v1/workflow/stream_resume: the answer to an
// Interrupt event resumes the run, on this process whichever one started
// it, streaming as stream_run does. An event answered already is 409; an
// answer that does not fit the question is 400 and leaves it pending.
func (h Coze) StreamResume(ctx context.Context, c *app.RequestContext) error {
	var req resumeRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	in, err := req.toApp()
	if err != nil {
		return err
	}
	sig := &startSignal{EventQueue: NewEventQueue(), started: make(chan error, 1)}
	go func() {
		out, err := h.Svc.Resume(context.WithoutCancel(ctx), httpx.Caller(c), in, sig)
		if sig.fire(err) && err != nil {
			return // refused before it ran: answered as JSON
		}
		sig.Finish(out, err)
	}()
	if err := <-sig.started; err != nil {
		return err
	}
	writeStream(ctx, c, sig.EventQueue)
	return nil
}

// startSignal passes events on and tells the handler, on the first one,
// that the run started: errors before it are plain JSON answers.
type startSignal struct {
	*EventQueue
	once    sync.Once
	started chan error
}

// Emit passes an event on, first signalling the start.
func (s *startSignal) Emit(e wf.Event) {
	s.fire(nil)
	s.EventQueue.Emit(e)
}

// fire signals the start, or an error before it, once; it reports whether
// this call did.
func (s *startSignal) fire(err error) bool {
	first := false
	s.once.Do(func() { s.started <- err; first = true })
	return first
}

// sseStream writes Coze workflow events with consecutive ids.
type sseStream struct {
	w     *sse.Writer
	next  int
	seqs  map[string]int
	usage wf.Usage
}

func (s *sseStream) write(event string, data any) error {
	b, _ := json.Marshal(data)
	err := s.w.WriteEvent(strconv.Itoa(s.next), event, b)
	s.next++
	return err
}

// writeStream sends the run's events until it ends, or the client leaves.
func writeStream(ctx context.Context, c *app.RequestContext, q *EventQueue) {
	s := &sseStream{w: sse.NewWriter(c), seqs: map[string]int{}}
	defer s.w.Close()
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	for {
		events, done := q.Take()
		for _, e := range events {
			if err := s.event(e); err != nil {
				return
			}
		}
		if done {
			s.end(c, q)
			return
		}
		select {
		case <-q.Ready():
		case <-ping.C:
			if s.write("PING", struct{}{}) != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// event writes a Message for a piece of a node's message; other events
// only count tokens.
func (s *sseStream) event(e wf.Event) error {
	if e.Kind == wf.EventNodeFinished && e.Record != nil {
		s.usage.InputTokens += e.Record.Usage.InputTokens
		s.usage.OutputTokens += e.Record.Usage.OutputTokens
	}
	if e.Kind != wf.EventMessage {
		return nil
	}
	seq := s.seqs[e.NodeID]
	s.seqs[e.NodeID] = seq + 1
	title := e.Title
	if title == "" {
		title = e.NodeID
	}
	msg := map[string]any{"content": e.Text, "content_type": "text", "node_title": title, "node_id": e.NodeID,
		"node_type": e.Type, "node_seq_id": strconv.Itoa(seq), "node_is_finish": e.Final, "ext": map[string]string{}}
	if e.Final && e.Type == "end" {
		msg["usage"] = newUsage(s.usage.InputTokens, s.usage.OutputTokens)
	}
	return s.write("Message", msg)
}

// end writes Error when the run failed, then Done with the execute id.
func (s *sseStream) end(c *app.RequestContext, q *EventQueue) {
	out, err := q.Outcome()
	switch {
	case err != nil:
		_, code, msg := httpx.Classify(err)
		_ = s.write("Error", map[string]any{"error_code": code, "error_message": msg})
	case out.Failure != nil:
		_ = s.write("Error", map[string]any{"error_code": httpx.CodeInvalid, "error_message": out.Failure.Error()})
	case out.Interrupt != nil:
		in := newInterrupt(out.EventID, out.Interrupt)
		_ = s.write("Interrupt", map[string]any{"interrupt_data": in, "node_title": in.NodeTitle})
	}
	done := map[string]any{"debug_url": ""}
	if out != nil && out.Run != nil {
		done["execute_id"] = strconv.FormatInt(out.Run.ID, 10)
	}
	_ = s.write("Done", done)
}
