package kvtest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// InvalidationListener is what an invalidation bus delivers to, in
// package memory, package redis and application/invalidation alike.
type InvalidationListener = interface {
	Drop(tags []string)
	Resubscribed()
	Heard(asOf time.Time)
}

// InvalidationBus is the contract of memory.InvalidationBus and
// redis.InvalidationBus.
type InvalidationBus interface {
	Publish(ctx context.Context, tags []string) error
	Listen(ctx context.Context, l InvalidationListener)
}

// TestInvalidationBus runs the invalidation bus contract; newBuses returns
// n buses that reach one another (one per process) for one subtest.
func TestInvalidationBus(t *testing.T, newBuses func(t *testing.T, n int) []InvalidationBus) {
	t.Run("every listener hears every publication", func(t *testing.T) {
		t.Parallel()
		buses := newBuses(t, 2)
		a, b := Listen(t, buses[0]), Listen(t, buses[1])
		noErr(t, "publish", buses[0].Publish(background(t), []string{"user:1", "ws:2"}))
		noErr(t, "publish", buses[1].Publish(background(t), []string{"bot:3"}))
		for name, r := range map[string]*Recorder{"publisher's": a, "other process's": b} {
			eventually(t, "the "+name+" listener to hear both publications", func() bool {
				return slices.Equal(r.Dropped(), []string{"user:1", "ws:2", "bot:3"})
			})
		}
	})
	t.Run("a listener is told it is subscribed before it is heard", func(t *testing.T) {
		t.Parallel()
		before := time.Now()
		r := Listen(t, newBuses(t, 1)[0])
		eventually(t, "the listener to be heard", func() bool { return !r.HeardAt().IsZero() })
		if r.Resubscriptions() < 1 || r.HeardAt().Before(before) || r.FirstEvent() != "resubscribed" {
			t.Fatalf("events %v, heard at %v (listening since %v); want resubscribed first, then heard after",
				r.Events(), r.HeardAt(), before)
		}
	})
}

// Recorder is a listener that keeps what it was told, for tests.
type Recorder struct {
	mu      sync.Mutex
	events  []string
	dropped []string
	resubs  int
	heard   time.Time
}

// Listen makes a Recorder listen to bus until the test ends.
func Listen(t *testing.T, bus InvalidationBus) *Recorder {
	t.Helper()
	r := &Recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); bus.Listen(ctx, r) }()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, "the listener to subscribe", func() bool { return r.Resubscriptions() > 0 })
	return r
}

// Drop records tags.
func (r *Recorder) Drop(tags []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped = append(r.dropped, tags...)
	r.events = append(r.events, "drop "+strings.Join(tags, ","))
}

// Resubscribed counts a (re)subscription.
func (r *Recorder) Resubscribed() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resubs++
	r.events = append(r.events, "resubscribed")
}

// Heard keeps the latest asOf.
func (r *Recorder) Heard(asOf time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if asOf.After(r.heard) {
		r.heard = asOf
	}
	if len(r.events) == 0 || r.events[len(r.events)-1] != "heard" {
		r.events = append(r.events, "heard")
	}
}

// Dropped returns every tag dropped so far, in order.
func (r *Recorder) Dropped() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.dropped)
}

// Resubscriptions returns how often the listener was (re)subscribed.
func (r *Recorder) Resubscriptions() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resubs
}

// HeardAt returns the latest time up to which everything was heard.
func (r *Recorder) HeardAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.heard
}

// Events returns what the listener was told, in order.
func (r *Recorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// FirstEvent returns the first thing the listener was told.
func (r *Recorder) FirstEvent() string {
	if e := r.Events(); len(e) > 0 {
		return e[0]
	}
	return ""
}
