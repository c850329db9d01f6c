package channel

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// streamer grows the first message of one answer in place while the
// model writes it: the first text is posted at once, then at most one
// edit per EditInterval carries the answer so far (its first part when
// it outgrew one message). It never sends the same text twice in a row.
// Only the final delivery is retried: a streamed send that fails is
// skipped (a rate limit) or ends the streaming (any other error), and
// the final delivery carries the text. A nil *streamer does nothing.
type streamer struct {
	r    *Runtime
	s    Streamer
	c    *channel.Channel
	d    *channel.Delivery
	wake chan struct{}
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex
	latest string

	// Owned by run until done is closed.
	handle json.RawMessage
	shown  string    // the Markdown the message shows
	edits  int       // edits made
	next   time.Time // no send before
	off    bool      // streaming ended early
}

// stream starts streaming an event's answer when its kind edits
// messages and none of the answer was delivered yet; nil otherwise.
func (r *Runtime) stream(ctx context.Context, c *channel.Channel, d *channel.Delivery) *streamer {
	s, ok := r.d.Adapters[c.Kind].(Streamer)
	if !ok || d.NotText || d.PartsSent > 0 {
		return nil
	}
	st := &streamer{r: r, s: s, c: c, d: d, handle: json.RawMessage(d.Handle),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go st.run(ctx)
	return st
}

// progress takes the answer so far; it returns at once.
func (st *streamer) progress(text string) {
	st.mu.Lock()
	st.latest = text
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// progressFunc is the TurnRequest.Progress of the streamer, nil for none.
func (st *streamer) progressFunc() func(string) {
	if st == nil {
		return nil
	}
	return st.progress
}

// finish stops the streaming, waiting for a send under way, and returns
// the message's handle and the Markdown it shows.
func (st *streamer) finish() (json.RawMessage, string) {
	if st == nil {
		return nil, ""
	}
	select {
	case <-st.stop:
	default:
		close(st.stop)
	}
	<-st.done
	return st.handle, st.shown
}

func (st *streamer) run(ctx context.Context) {
	defer close(st.done)
	for {
		select {
		case <-st.stop:
			return
		case <-ctx.Done():
			return
		case <-st.wake:
		}
		if !st.pace(ctx) {
			return
		}
		st.flush(ctx)
	}
}

// pace waits until the next send is allowed; false when stopped first.
func (st *streamer) pace(ctx context.Context) bool {
	wait := st.next.Sub(st.r.d.Now())
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-st.stop:
		return false
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// flush sends the answer so far, unless the message shows it already.
func (st *streamer) flush(ctx context.Context) {
	st.mu.Lock()
	text := st.latest
	st.mu.Unlock()
	part := firstPart(st.s, text)
	if st.off || part == "" || part == st.shown {
		return
	}
	if limit := st.s.MaxEdits(); st.handle != nil && limit > 0 && st.edits >= limit-1 {
		return // the last edit the platform allows is the final one
	}
	err := st.send(ctx, part)
	st.next = st.r.d.Now().Add(max(st.r.d.EditInterval, pause(err, 0)))
	switch {
	case err == nil:
		st.shown = part
	case permanent(err) || errors.Is(err, errs.ErrNotFound):
		st.off = true
		st.r.d.Log.Warn("channels: streaming an answer stopped; the final delivery sends it", "event", st.d.ID, "err", err)
	default:
		// Rate limited or unavailable: this send is skipped, and the
		// next one, or the final delivery, carries the text.
	}
}

// send posts the first message, or edits it.
func (st *streamer) send(ctx context.Context, part string) error {
	if st.handle != nil {
		err := st.s.Edit(ctx, st.c, st.d.Reply, st.handle, part)
		if err == nil {
			st.edits++
		}
		return err
	}
	h, err := st.s.SendPart(ctx, st.c, st.d.Reply, 0, part)
	if err != nil {
		return err
	}
	if len(h) == 0 {
		h = json.RawMessage(`{}`) // a message was made: never post a second first one
	}
	st.handle = h
	st.d = st.r.update(ctx, st.d, func(x *channel.Delivery) { x.Handle = checkedHandle(h) })
	return nil
}

// interrupted notes, in a streamed message, that its answer was not
// finished (the turn failed; another try may grow it again), so the
// half-written text does not read as the whole answer.
func (st *streamer) interrupted(ctx context.Context) {
	handle, shown := st.finish()
	if handle == nil || shown == "" {
		return // nothing shown by this try: the message says so since an earlier one
	}
	if err := st.s.Edit(ctx, st.c, st.d.Reply, handle, shown+"\n\n"+InterruptedNote); err != nil {
		st.r.d.Log.Warn("channels: could not mark a streamed answer as interrupted", "event", st.d.ID, "err", err)
	}
}

// InterruptedNote ends a streamed message whose answer failed half-way.
const InterruptedNote = "_(The bot could not finish this answer.)_"

// firstPart is the first message of an answer as s cuts it, "" for none.
func firstPart(s PartSender, text string) string {
	parts := s.Parts(text)
	if len(parts) == 0 {
		return ""
	}
	return parts[0]
}

// checkedHandle is a handle the deliveries can store: nil when it is too
// long (the answer then cannot be resumed into that message).
func checkedHandle(h json.RawMessage) []byte {
	if len(h) > MaxHandle {
		return nil
	}
	return h
}
