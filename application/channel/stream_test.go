package channel_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

const event = `{"ID":"e1","User":"ann","Key":"chat:1","Text":"hi"}`

// TestStreamingGrowsTheFirstMessage: the first text is posted as soon as
// the model wrote it, each later text edits that message, and when the
// message already shows the whole answer no final edit is sent.
func TestStreamingGrowsTheFirstMessage(t *testing.T) {
	p := newEditPlatform(100)
	turns := &stepTurns{steps: []string{"Hello", "Hello wor", "Hello world."}}
	turns.after = func(i int) { p.waitCalls(t, i+1) } // the model writes on once the platform saw the text
	e := newStreamEnv(p, turns, time.Millisecond)
	d := e.run(t, event)
	want := []string{"post 0 Hello", "edit m1 Hello wor", "edit m1 Hello world."}
	if got := p.log(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("platform calls = %q; want %q", got, want)
	}
	if d.Status != channel.DeliveryDelivered || d.Attempts != 1 || d.PartsSent != 1 || string(d.Handle) != `{"id":"m1"}` {
		t.Fatalf("event = %s, %d attempts, %d parts, handle %s; want delivered once, 1 part, the streamed message",
			d.Status, d.Attempts, d.PartsSent, d.Handle)
	}
}

// TestStreamingEditsAtMostOncePerInterval: however fast the model
// writes, no edit follows the first message within the interval; the
// final edit carries the whole first part and the rest of a long answer
// follows as new messages.
func TestStreamingEditsAtMostOncePerInterval(t *testing.T) {
	p := newEditPlatform(10)
	var steps []string
	answer := "The answer grows one word at a time until it is long"
	for i := 1; i <= len(answer); i++ {
		steps = append(steps, answer[:i])
	}
	turns := &stepTurns{steps: steps}
	turns.after = func(i int) {
		if i == 0 {
			p.waitCalls(t, 1)
		}
	}
	e := newStreamEnv(p, turns, time.Hour)
	d := e.run(t, event)
	got := p.log()
	parts := p.Parts(answer)
	want := []string{"post 0 T", "edit m1 " + parts[0]}
	for i := 1; i < len(parts); i++ {
		want = append(want, "post "+strconv.Itoa(i)+" "+parts[i])
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("platform calls = %q; want %q (one message, no edit within the hour, then the final)", got, want)
	}
	if d.Status != channel.DeliveryDelivered || d.PartsSent != len(parts) {
		t.Fatalf("event = %s with %d parts sent; want delivered, %d", d.Status, d.PartsSent, len(parts))
	}
}

// TestStreamingSkipsARateLimitedEdit: a 429 on an edit skips that edit
// (the delivery's attempts count only the final sends) and a later edit
// carries the text.
func TestStreamingSkipsARateLimitedEdit(t *testing.T) {
	p := newEditPlatform(100)
	turns := &stepTurns{steps: []string{"one", "one two", "one two three"}}
	turns.after = func(i int) {
		if i == 0 {
			p.waitCalls(t, 1)
			p.failNext(&channelapp.RetryError{Status: 429})
		}
		p.waitCalls(t, i+1)
	}
	e := newStreamEnv(p, turns, time.Millisecond)
	d := e.run(t, event)
	want := []string{"post 0 one", "edit m1 one two", "edit m1 one two three"}
	if got := p.log(); strings.Join(got, "|") != strings.Join(want, "|") || p.shows("m1") != "one two three" {
		t.Fatalf("platform calls = %q, message shows %q; want %q", got, p.shows("m1"), want)
	}
	if d.Status != channel.DeliveryDelivered || d.Attempts != 1 {
		t.Fatalf("event = %s after %d attempts; want delivered at the first", d.Status, d.Attempts)
	}
}

// TestStreamingRefusedTokenMarksTheChannelFailing: a token refused while
// streaming stops the streaming; the final delivery meets the refusal
// too, is not retried, and marks the channel failing.
func TestStreamingRefusedTokenMarksTheChannelFailing(t *testing.T) {
	p := newEditPlatform(100)
	refused := errs.Unauthenticated("Unauthorized")
	p.failNext(refused, refused)
	turns := &stepTurns{steps: []string{"one", "one two"}}
	turns.after = func(i int) {
		if i == 0 {
			p.waitCalls(t, 1)
		}
	}
	e := newStreamEnv(p, turns, time.Millisecond)
	d := e.run(t, event)
	if got := p.log(); len(got) != 2 || !strings.HasPrefix(got[0], "post 0 ") || got[1] != "post 0 one two" {
		t.Fatalf("platform calls = %q; want the refused streamed post and one final send", got)
	}
	c := e.store.stored(1)
	if d.Status != channel.DeliveryFailed || d.Attempts != 1 || c.Status != channel.StatusFailing || !strings.Contains(c.StatusDetail, "Unauthorized") {
		t.Fatalf("event %s after %d attempts, channel %s (%q); want failed once and the channel failing", d.Status, d.Attempts, c.Status, c.StatusDetail)
	}
}

// TestStreamedAnswerThatFailsSaysSo: when every try of the turn fails
// after part of the answer was shown, the message says the answer was not
// finished and the apology follows as a message of its own.
func TestStreamedAnswerThatFailsSaysSo(t *testing.T) {
	p := newEditPlatform(100)
	turns := &stepTurns{steps: []string{"Half an"}, err: errs.New(errs.ErrUnavailable, "the model went away")}
	turns.after = func(int) { p.waitCalls(t, 1) }
	e := newStreamEnv(p, turns, time.Millisecond)
	d := e.run(t, event)
	if d.Status != channel.DeliveryDelivered || !d.Apology || d.TurnAttempts != 3 || p.shows("m1") != "Half an\n\n"+channelapp.InterruptedNote {
		t.Fatalf("event %s (apology %v, %d turns), message shows %q; want the apology delivered after 3 turns, the message saying it was not finished",
			d.Status, d.Apology, d.TurnAttempts, p.shows("m1"))
	}
	if p.shows("m2") != channelapp.Apology || !strings.Contains(d.Error, "the model went away") {
		t.Fatalf("second message %q, error %q; want the apology, and why in the error", p.shows("m2"), d.Error)
	}
}

// TestStreamingKeepsTheLastEditForTheFinalText: on a platform that
// limits edits, streaming stops one short, so the final text always fits.
func TestStreamingKeepsTheLastEditForTheFinalText(t *testing.T) {
	p := newEditPlatform(100)
	p.maxEdits = 3
	steps := []string{"a", "a b", "a b c", "a b c d", "a b c d e", "a b c d e f"}
	turns := &stepTurns{steps: steps}
	turns.after = func(i int) {
		if i < 3 {
			p.waitCalls(t, i+1)
		}
	}
	e := newStreamEnv(p, turns, time.Millisecond)
	d := e.run(t, event)
	edits := 0
	for _, c := range p.log() {
		if strings.HasPrefix(c, "edit ") {
			edits++
		}
	}
	if edits != 3 || p.shows("m1") != "a b c d e f" || d.Status != channel.DeliveryDelivered {
		t.Fatalf("calls %q; want 2 streamed edits and the final one, the message showing the whole answer", p.log())
	}
}

// TestRetryResumesAtTheFirstPartNotSent: a send of the second part fails
// once; the retry sends the second and third parts, not the first again.
func TestRetryResumesAtTheFirstPartNotSent(t *testing.T) {
	p := newEditPlatform(5)
	e := newStreamEnv(p, &stepTurns{steps: []string{"aaaaabbbbbccccc"}}, time.Hour)
	e.rt = channelapp.NewRuntime(channelapp.RuntimeDeps{Channels: e.store, Events: e.events, Bots: published{},
		Turns: &stepTurns{steps: []string{"aaaaabbbbbccccc"}}, Queue: e.queue, Backoff: time.Millisecond,
		Adapters: map[channel.Kind]channelapp.Adapter{channel.KindTelegram: partsOnly{p}}})
	p.failNext(nil, &channelapp.RetryError{Status: 503})
	d := e.run(t, event)
	want := []string{"post 0 aaaaa", "post 1 bbbbb", "post 1 bbbbb", "post 2 ccccc"}
	if got := p.log(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("platform calls = %q; want %q", got, want)
	}
	if d.Status != channel.DeliveryDelivered || d.Attempts != 2 || d.PartsSent != 3 || string(d.Handle) != `{"id":"m1"}` {
		t.Fatalf("event = %s, %d attempts, %d parts, handle %s", d.Status, d.Attempts, d.PartsSent, d.Handle)
	}
}

// partsOnly is a PartSender that cannot edit: it hides Edit.
type partsOnly struct{ p *editPlatform }

func (o partsOnly) Receive(ctx context.Context, c *channel.Channel, in channelapp.Inbound) (channelapp.Reaction, error) {
	return o.p.Receive(ctx, c, in)
}

func (o partsOnly) Deliver(ctx context.Context, c *channel.Channel, r json.RawMessage, text string) error {
	return o.p.Deliver(ctx, c, r, text)
}

func (o partsOnly) Parts(text string) []string { return o.p.Parts(text) }

func (o partsOnly) SendPart(ctx context.Context, c *channel.Channel, r json.RawMessage, i int, text string) (json.RawMessage, error) {
	return o.p.SendPart(ctx, c, r, i, text)
}
