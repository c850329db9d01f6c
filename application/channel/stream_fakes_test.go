package channel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// editPlatform is a Streamer over an in-memory platform as strict as
// Telegram: a part is at most limit characters, an edit needs a message
// the adapter made and refuses text the message already shows ("message
// is not modified"). Sends answer the errors queued in fail, one a call.
type editPlatform struct {
	limit    int
	maxEdits int

	mu       sync.Mutex
	calls    []string          // "post <i> <text>" or "edit <id> <text>", accepted or not
	messages map[string]string // what each message made shows
	fail     []error
	changed  chan struct{} // signalled on every call
}

func newEditPlatform(limit int) *editPlatform {
	return &editPlatform{limit: limit, messages: map[string]string{}, changed: make(chan struct{}, 100)}
}

func (p *editPlatform) Receive(_ context.Context, _ *channel.Channel, in channelapp.Inbound) (channelapp.Reaction, error) {
	var ev struct{ ID, User, Key, Text string }
	_ = json.Unmarshal(in.Body, &ev)
	return channelapp.Reaction{Events: []channelapp.Event{{ID: ev.ID, UserID: ev.User, ConversationKey: ev.Key, Text: ev.Text,
		Reply: json.RawMessage(`{"chat":1}`)}}}, nil
}

func (p *editPlatform) Deliver(context.Context, *channel.Channel, json.RawMessage, string) error {
	return fmt.Errorf("the runtime must send a PartSender's answer part by part")
}

// Parts cuts text every limit characters.
func (p *editPlatform) Parts(text string) []string {
	var out []string
	for r := []rune(strings.TrimSpace(text)); len(r) > 0; {
		n := min(len(r), p.limit)
		out, r = append(out, string(r[:n])), r[n:]
	}
	return out
}

func (p *editPlatform) MaxEdits() int { return p.maxEdits }

func (p *editPlatform) SendPart(_ context.Context, _ *channel.Channel, _ json.RawMessage, i int, text string) (json.RawMessage, error) {
	if err := p.call(fmt.Sprintf("post %d %s", i, text)); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id := fmt.Sprintf("m%d", len(p.messages)+1)
	p.messages[id] = text
	return json.RawMessage(`{"id":"` + id + `"}`), nil
}

func (p *editPlatform) Edit(_ context.Context, _ *channel.Channel, _, handle json.RawMessage, text string) error {
	var h struct{ ID string }
	_ = json.Unmarshal(handle, &h)
	if err := p.call("edit " + h.ID + " " + text); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	shown, ok := p.messages[h.ID]
	switch {
	case !ok:
		return errs.New(errs.ErrInvalid, "Bad Request: message to edit not found")
	case shown == text:
		return errs.New(errs.ErrInvalid, "Bad Request: message is not modified")
	}
	p.messages[h.ID] = text
	return nil
}

// call records a call and answers the next queued failure, if any.
func (p *editPlatform) call(what string) error {
	p.mu.Lock()
	defer func() {
		p.mu.Unlock()
		select {
		case p.changed <- struct{}{}:
		default: // enough wake-ups are pending
		}
	}()
	p.calls = append(p.calls, what)
	if len(p.fail) == 0 {
		return nil
	}
	err := p.fail[0]
	p.fail = p.fail[1:]
	return err
}

func (p *editPlatform) failNext(errs ...error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail = append(p.fail, errs...)
}

func (p *editPlatform) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

// waitCalls waits until the platform saw n calls.
func (p *editPlatform) waitCalls(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for len(p.log()) < n {
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("the platform saw %v; want at least %d calls", p.log(), n)
		}
	}
}

// shows is what message id shows now.
func (p *editPlatform) shows(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.messages[id]
}

// stepTurns answers with a model that writes the answer in steps: it
// reports each step through Progress, then runs after(i) (the test's
// pacing), and answers the last step, or fails with err.
type stepTurns struct {
	steps []string
	after func(i int)
	err   error
}

func (s *stepTurns) Answer(_ context.Context, req channelapp.TurnRequest) (channelapp.TurnAnswer, error) {
	for i, text := range s.steps {
		if req.Progress != nil {
			req.Progress(text)
		}
		if s.after != nil {
			s.after(i)
		}
	}
	if s.err != nil {
		return channelapp.TurnAnswer{}, s.err
	}
	return channelapp.TurnAnswer{ChatID: 1, ConversationID: 2, Text: s.steps[len(s.steps)-1]}, nil
}

// streamEnv is a runtime with one Telegram-like channel over p.
type streamEnv struct {
	rt     *channelapp.Runtime
	store  *memStore
	events *memEvents
	queue  *memQueue
}

func newStreamEnv(p channelapp.Adapter, turns channelapp.Turns, interval time.Duration) *streamEnv {
	e := &streamEnv{events: newMemEvents(), queue: &memQueue{},
		store: &memStore{rows: map[int64]channel.Channel{1: {ID: 1, BotID: 9, Kind: channel.KindTelegram, Status: channel.StatusActive}}}}
	e.rt = channelapp.NewRuntime(channelapp.RuntimeDeps{Channels: e.store, Events: e.events, Bots: published{}, Turns: turns,
		Queue: e.queue, Adapters: map[channel.Kind]channelapp.Adapter{channel.KindTelegram: p},
		Backoff: time.Millisecond, TurnBackoff: time.Millisecond, EditInterval: interval})
	return e
}

// run receives one event and processes it; it returns the event after.
func (e *streamEnv) run(t *testing.T, body string) *channel.Delivery {
	t.Helper()
	ctx := context.Background()
	in := channelapp.Inbound{Header: func(string) string { return "" }, Body: []byte(body)}
	if _, err := e.rt.Receive(ctx, "telegram", 1, in); err != nil {
		t.Fatal(err)
	}
	e.queue.mu.Lock()
	payload := e.queue.payloads[len(e.queue.payloads)-1]
	e.queue.mu.Unlock()
	if err := e.rt.HandleEvent(ctx, payload); err != nil {
		t.Fatal(err)
	}
	var q struct{ Event int64 }
	_ = json.Unmarshal(payload, &q)
	d, err := e.events.GetEvent(ctx, q.Event)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
