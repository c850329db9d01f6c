package invalidation_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/application/invalidation"
)

// fakeBus records publications and hands the test the hub's listener.
type fakeBus struct {
	mu        sync.Mutex
	published [][]string
	failures  int // publications to refuse before accepting
	listener  chan invalidation.Listener
}

func newFakeBus() *fakeBus { return &fakeBus{listener: make(chan invalidation.Listener, 1)} }

func (b *fakeBus) Publish(_ context.Context, tags []string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures > 0 {
		b.failures--
		return errors.New("bus down")
	}
	b.published = append(b.published, tags)
	return nil
}

func (b *fakeBus) Listen(ctx context.Context, l invalidation.Listener) {
	b.listener <- l
	<-ctx.Done()
}

func (b *fakeBus) sent() [][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.published)
}

// startHub runs a hub over bus until the test ends and returns it with the
// listener its bus was given.
func startHub(t *testing.T, bus *fakeBus, opts invalidation.Options) (*invalidation.Hub, invalidation.Listener) {
	t.Helper()
	h := invalidation.NewHub(bus, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return h, <-bus.listener
}

// counter is a load function that counts its calls.
type counter struct {
	mu    sync.Mutex
	calls int
}

func (c *counter) load(val string, tags ...string) func() (string, []string, error) {
	return func() (string, []string, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.calls++
		return val, tags, nil
	}
}

func (c *counter) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

func get(t *testing.T, c *invalidation.Cache[string], key string, load func() (string, []string, error)) string {
	t.Helper()
	v, err := c.Get(key, load)
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	return v
}

func TestCacheKeepsLoadsUntilATagOfThemIsInvalidated(t *testing.T) {
	bus := newFakeBus()
	hub, _ := startHub(t, bus, invalidation.Options{TTL: time.Minute})
	c := invalidation.NewCache[string](hub, 10)
	var loads counter
	for range 3 {
		if v := get(t, c, "k", loads.load("v1", "user:1", "ws:2")); v != "v1" {
			t.Fatalf("got %q, want v1", v)
		}
	}
	if loads.n() != 1 {
		t.Fatalf("3 gets loaded %d times, want once", loads.n())
	}
	hub.Invalidate(context.Background(), "user:9") // another user's change
	get(t, c, "k", loads.load("v1", "user:1", "ws:2"))
	if loads.n() != 1 {
		t.Fatalf("a change of another user reloaded the entry")
	}
	hub.Invalidate(context.Background(), "ws:2")
	if v := get(t, c, "k", loads.load("v2", "user:1", "ws:2")); v != "v2" || loads.n() != 2 {
		t.Fatalf("after invalidating ws:2 got %q after %d loads; want v2 reloaded", v, loads.n())
	}
	if sent := bus.sent(); len(sent) != 2 || sent[1][0] != "ws:2" {
		t.Fatalf("published %v; want each invalidation published to the other processes", sent)
	}
}

func TestCacheNeverKeepsAFailure(t *testing.T) {
	hub, _ := startHub(t, newFakeBus(), invalidation.Options{TTL: time.Minute})
	c := invalidation.NewCache[string](hub, 10)
	calls := 0
	for range 3 {
		_, err := c.Get("unknown", func() (string, []string, error) { calls++; return "", nil, errors.New("not found") })
		if err == nil {
			t.Fatal("a failed load returned no error")
		}
	}
	if calls != 3 || c.Len() != 0 {
		t.Fatalf("3 gets of an unknown key loaded %d times and kept %d entries; want 3 loads, nothing kept", calls, c.Len())
	}
}

func TestCacheIsBoundedAndDropsTheLeastRecentlyUsed(t *testing.T) {
	hub, _ := startHub(t, newFakeBus(), invalidation.Options{TTL: time.Minute})
	c := invalidation.NewCache[string](hub, 3)
	var loads counter
	get(t, c, "hot", loads.load("h"))
	for i := range 10 {
		get(t, c, fmt.Sprint("cold", i), loads.load("c"))
		get(t, c, "hot", loads.load("h")) // used all along: stays
	}
	if c.Len() != 3 {
		t.Fatalf("kept %d entries, want the bound, 3", c.Len())
	}
	if loads.n() != 11 {
		t.Fatalf("%d loads; want 11 (the hot key loaded once)", loads.n())
	}
	before := loads.n()
	get(t, c, "cold0", loads.load("c"))
	if loads.n() != before+1 {
		t.Fatal("the least recently used entry was not the one dropped")
	}
}

func TestCacheEntriesExpireAfterTheTTL(t *testing.T) {
	hub, _ := startHub(t, newFakeBus(), invalidation.Options{TTL: 50 * time.Millisecond})
	c := invalidation.NewCache[string](hub, 10)
	var loads counter
	get(t, c, "k", loads.load("v"))
	time.Sleep(60 * time.Millisecond) // past the TTL: the entry must be gone
	get(t, c, "k", loads.load("v"))
	if loads.n() != 2 {
		t.Fatalf("%d loads; want the expired entry loaded again", loads.n())
	}
}

func TestALoadThatRacedAnInvalidationIsNotKept(t *testing.T) {
	hub, _ := startHub(t, newFakeBus(), invalidation.Options{TTL: time.Minute})
	c := invalidation.NewCache[string](hub, 10)
	racing := func() (string, []string, error) {
		// The change commits and is invalidated while this load has
		// already read the old value.
		hub.Invalidate(context.Background(), "token:1")
		return "old", []string{"token:1"}, nil
	}
	get(t, c, "k", racing)
	var loads counter
	if v := get(t, c, "k", loads.load("new", "token:1")); v != "new" || loads.n() != 1 {
		t.Fatalf("got %q; want the value read before the invalidation not kept", v)
	}
}

func TestCachesOffWithoutATTL(t *testing.T) {
	hub, _ := startHub(t, newFakeBus(), invalidation.Options{})
	c := invalidation.NewCache[string](hub, 10)
	var loads counter
	get(t, c, "k", loads.load("v"))
	get(t, c, "k", loads.load("v"))
	if loads.n() != 2 || c.Len() != 0 {
		t.Fatalf("with TTL 0: %d loads, %d kept; want every get loaded, nothing kept", loads.n(), c.Len())
	}
}

func TestASilentBusTurnsTheCacheOffUntilResubscribed(t *testing.T) {
	const lease = 100 * time.Millisecond
	hub, l := startHub(t, newFakeBus(), invalidation.Options{TTL: time.Minute, Lease: lease})
	c := invalidation.NewCache[string](hub, 10)
	var loads counter
	get(t, c, "k", loads.load("v"))
	get(t, c, "k", loads.load("v"))
	if loads.n() != 2 {
		t.Fatalf("%d loads before the bus was heard; want every get to load", loads.n())
	}
	l.Resubscribed()
	l.Heard(time.Now())
	get(t, c, "k", loads.load("v"))
	get(t, c, "k", loads.load("v"))
	if loads.n() != 3 {
		t.Fatalf("%d loads once the bus was heard; want the second get served from the cache", loads.n())
	}
	time.Sleep(lease + 20*time.Millisecond) // nothing heard for longer than the lease
	get(t, c, "k", loads.load("v"))
	if loads.n() != 4 {
		t.Fatalf("%d loads; want the cache bypassed once the bus has been silent past the lease", loads.n())
	}
	l.Resubscribed() // whatever was published meanwhile was missed
	l.Heard(time.Now())
	if c.Len() != 0 {
		t.Fatalf("%d entries kept across a resubscription; want the cache flushed", c.Len())
	}
}

func TestAFailedPublicationIsRetried(t *testing.T) {
	bus := newFakeBus()
	bus.failures = 3
	hub, _ := startHub(t, bus, invalidation.Options{TTL: time.Minute, Retry: time.Millisecond})
	hub.Invalidate(context.Background(), "token:7")
	deadline := time.Now().Add(10 * time.Second)
	for len(bus.sent()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the invalidation was never published after the bus came back")
		}
		time.Sleep(time.Millisecond)
	}
	if sent := bus.sent(); !slices.Equal(sent[0], []string{"token:7"}) {
		t.Fatalf("published %v, want [token:7]", sent)
	}
}
