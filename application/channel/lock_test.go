package channel_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/memory"
)

// convTurns opens a conversation for a turn that names none, takes its
// time (so turns that may run together do), and records what ran.
type convTurns struct {
	mu      sync.Mutex
	next    int64
	running int
	most    int     // the most turns running at once
	given   []int64 // the conversation each turn was asked to run in
}

func (c *convTurns) Answer(_ context.Context, req channelapp.TurnRequest) (channelapp.TurnAnswer, error) {
	c.mu.Lock()
	c.running++
	c.most = max(c.most, c.running)
	c.given = append(c.given, req.ConversationID)
	conv := req.ConversationID
	if conv == 0 {
		c.next++
		conv = 100 + c.next
	}
	c.mu.Unlock()
	time.Sleep(100 * time.Millisecond) // long enough for a second worker to start a turn, were it allowed to
	c.mu.Lock()
	c.running--
	c.mu.Unlock()
	return channelapp.TurnAnswer{ChatID: conv * 10, ConversationID: conv, Text: "echo: " + req.Text}, nil
}

// TestEventsOfOneConversationRunOneAfterAnother: the first two messages
// of a new chat, processed at once by two workers (two runtimes sharing
// the stores and a locker, as two processes share the database and
// Redis), end in one conversation, the second turn running after the
// first in it. Without a shared locker each runtime still serializes its
// own workers.
func TestEventsOfOneConversationRunOneAfterAnother(t *testing.T) {
	for _, tc := range []struct {
		name    string
		locker  func() channelapp.Locker
		runtime int // the runtimes the two workers use: 2 = one each
	}{
		{"two processes, one locker", func() channelapp.Locker { return memory.NewLocker() }, 2},
		{"one process, its own locks", func() channelapp.Locker { return nil }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newEditPlatform(100)
			turns := &convTurns{}
			e := newStreamEnv(partsOnly{p}, turns, time.Hour)
			locker := tc.locker()
			rts := make([]*channelapp.Runtime, 2)
			for i := range rts {
				rts[i] = channelapp.NewRuntime(channelapp.RuntimeDeps{Channels: e.store, Events: e.events, Bots: published{},
					Turns: turns, Queue: e.queue, Locker: locker, Adapters: map[channel.Kind]channelapp.Adapter{channel.KindTelegram: partsOnly{p}}})
			}
			if tc.runtime == 1 {
				rts[1] = rts[0]
			}
			ctx := context.Background()
			for _, body := range []string{`{"ID":"e1","User":"ann","Key":"chat:1","Text":"first"}`, `{"ID":"e2","User":"ann","Key":"chat:1","Text":"second"}`} {
				if _, err := rts[0].Receive(ctx, "telegram", 1, channelapp.Inbound{Header: func(string) string { return "" }, Body: []byte(body)}); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			for i, payload := range e.queue.payloads {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := rts[i].HandleEvent(ctx, payload); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			d1, _ := e.events.GetEvent(ctx, 1)
			d2, _ := e.events.GetEvent(ctx, 2)
			if turns.most != 1 || d1.ConversationID != d2.ConversationID || d1.ConversationID == 0 {
				t.Fatalf("%d turns ran at once; conversations %d and %d; want one at a time, in one conversation", turns.most, d1.ConversationID, d2.ConversationID)
			}
			if len(turns.given) != 2 || turns.given[0] != 0 || turns.given[1] != d1.ConversationID {
				t.Fatalf("turns asked to run in %v; want a new conversation, then that one", turns.given)
			}
			if d1.Status != channel.DeliveryDelivered || d2.Status != channel.DeliveryDelivered {
				t.Fatalf("events %s and %s; want both delivered", d1.Status, d2.Status)
			}
		})
	}
}

// TestARedeliveredEventWaitingForTheLockIsNotAnsweredTwice: a queue
// message given to a second worker while the first still works on it
// waits for the conversation's lock, then finds the event done.
func TestARedeliveredEventWaitingForTheLockIsNotAnsweredTwice(t *testing.T) {
	p := newEditPlatform(100)
	turns := &convTurns{}
	e := newStreamEnv(partsOnly{p}, turns, time.Hour)
	ctx := context.Background()
	in := channelapp.Inbound{Header: func(string) string { return "" }, Body: []byte(`{"ID":"e1","User":"ann","Key":"chat:1","Text":"once"}`)}
	if _, err := e.rt.Receive(ctx, "telegram", 1, in); err != nil {
		t.Fatal(err)
	}
	payload := e.queue.payloads[0]
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := e.rt.HandleEvent(ctx, payload); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var q struct{ Event int64 }
	_ = json.Unmarshal(payload, &q)
	d, _ := e.events.GetEvent(ctx, q.Event)
	if len(turns.given) != 1 || len(p.log()) != 1 || d.Attempts != 1 {
		t.Fatalf("%d turns, platform calls %q, %d attempts; want the event answered and sent once", len(turns.given), p.log(), d.Attempts)
	}
}
