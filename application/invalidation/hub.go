// Package invalidation keeps in-process caches of what every request reads
// (tokens, users, memberships, published bot versions) fresh across the
// processes that share one database: every change that affects a cached
// entry drops it here at once and is published on a Bus, and every process
// drops what it hears.
//
// A process serves cached entries only while its bus proves it is
// delivering: an in-process bus always is; a Redis bus proves it with
// answered pings (Listener.Heard). An entry is therefore never served more
// than the Hub's lease after the change was published, whether or not the
// subscription was up at the time; on every (re)subscription the caches are
// flushed, since anything published meanwhile was missed. Entries also
// expire after a TTL, a safety net for a change whose publication failed.
package invalidation

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Listener receives what a Bus delivers. It aliases an unnamed interface
// type, so a bus in infra can name the same type without importing this
// package.
type Listener = interface {
	// Drop drops every entry tagged with one of tags.
	Drop(tags []string)
	// Resubscribed says the subscription was (re)established: whatever was
	// published before may have been missed.
	Resubscribed()
	// Heard says every invalidation published before asOf has been
	// delivered (asOf carries a monotonic clock reading).
	Heard(asOf time.Time)
}

// Bus carries invalidations between the processes sharing the storage.
type Bus interface {
	// Publish sends tags to the listeners of every process.
	Publish(ctx context.Context, tags []string) error
	// Listen delivers to l until ctx is done; it blocks.
	Listen(ctx context.Context, l Listener)
}

// All is the tag that drops every entry of every cache.
const All = "*"

// publishTimeout bounds the wait of a change for its publication; past it
// the publication is retried in the background, so a change does not hang
// while the bus is unreachable.
const publishTimeout = 500 * time.Millisecond

// Options tunes a Hub.
type Options struct {
	// Lease is how long after the bus last proved it delivers (Heard) the
	// caches may still be served; 0 for a bus that cannot miss a message
	// (in-process).
	Lease time.Duration
	// TTL is the longest an entry is served; 0 turns caching off.
	TTL time.Duration
	// Log receives failed publications; nil discards.
	Log *slog.Logger
	// Retry is the pause between attempts to publish what failed; 0 means
	// 100ms.
	Retry time.Duration
}

// Hub holds the caches of a process and the bus that keeps them fresh. It
// is safe for concurrent use.
type Hub struct {
	bus    Bus
	opts   Options
	base   time.Time    // heard is measured from here, on the monotonic clock
	heard  atomic.Int64 // nanoseconds after base
	mu     sync.Mutex
	caches []dropper
	retry  retrier
}

// dropper is a cache as the hub sees it.
type dropper interface {
	drop(tags []string)
}

// NewHub returns a Hub over bus; call Run to start listening.
func NewHub(bus Bus, opts Options) *Hub {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Retry <= 0 {
		opts.Retry = 100 * time.Millisecond
	}
	h := &Hub{bus: bus, opts: opts, base: time.Now()}
	h.heard.Store(-int64(opts.Lease) - 1) // not fresh until the bus is heard
	h.retry = retrier{hub: h, wake: make(chan struct{}, 1)}
	return h
}

// Run listens to the bus until ctx is done, then stops retrying failed
// publications; it blocks.
func (h *Hub) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); h.retry.loop(ctx) }()
	h.bus.Listen(ctx, listener{h})
	wg.Wait()
}

// Invalidate drops the entries tagged with tags in this process at once
// and publishes the tags to the others (a nil Hub does nothing). A failed publication is logged and
// retried in the background until it succeeds or the hub stops.
func (h *Hub) Invalidate(ctx context.Context, tags ...string) {
	if h == nil || len(tags) == 0 {
		return
	}
	h.dropLocal(tags)
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := h.bus.Publish(pctx, tags); err != nil {
		h.opts.Log.WarnContext(ctx, "cache invalidation not published; retrying", "tags", tags, "err", err)
		h.retry.add(tags)
	}
}

// DropLocal drops the entries tagged with tags in this process only, for
// changes the other processes need not hear of.
func (h *Hub) DropLocal(tags ...string) {
	if h != nil {
		h.dropLocal(tags)
	}
}

func (h *Hub) dropLocal(tags []string) {
	h.mu.Lock()
	caches := h.caches
	h.mu.Unlock()
	for _, c := range caches {
		c.drop(tags)
	}
}

func (h *Hub) register(c dropper) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.caches = append(h.caches, c)
}

// fresh reports whether cached entries may be served now.
func (h *Hub) fresh() bool {
	if h.opts.Lease == 0 {
		return true
	}
	return int64(time.Since(h.base))-h.heard.Load() <= int64(h.opts.Lease)
}

// enabled reports whether caching is on at all.
func (h *Hub) enabled() bool { return h != nil && h.opts.TTL > 0 }

// listener is the hub as its bus sees it.
type listener struct{ h *Hub }

func (l listener) Drop(tags []string) { l.h.dropLocal(tags) }

func (l listener) Resubscribed() { l.h.dropLocal([]string{All}) }

func (l listener) Heard(asOf time.Time) {
	at := int64(asOf.Sub(l.h.base))
	for {
		old := l.h.heard.Load()
		if at <= old || l.h.heard.CompareAndSwap(old, at) {
			return
		}
	}
}

// Tags name what cached entries depend on; a change publishes the tags of
// what it changed.

// User tags entries that depend on user id: its tokens, its record, its
// memberships.
func User(id int64) string { return "user:" + strconv.FormatInt(id, 10) }

// Token tags the entry of token id.
func Token(id int64) string { return "token:" + strconv.FormatInt(id, 10) }

// Workspace tags entries that depend on workspace id existing.
func Workspace(id int64) string { return "ws:" + strconv.FormatInt(id, 10) }

// Member tags the membership of user in workspace.
func Member(workspaceID, userID int64) string {
	return "member:" + strconv.FormatInt(workspaceID, 10) + ":" + strconv.FormatInt(userID, 10)
}

// Bot tags entries that depend on bot id: its published versions.
func Bot(id int64) string { return "bot:" + strconv.FormatInt(id, 10) }

// Workflow tags entries that depend on workflow id.
func Workflow(id int64) string { return "workflow:" + strconv.FormatInt(id, 10) }

// Watch calls fn with the tags of every invalidation this process makes
// or hears from the others (All when a resubscription may have missed
// some), for what must react to changes rather than cache them. fn must
// not block.
func (h *Hub) Watch(fn func(tags []string)) {
	if h != nil {
		h.register(watcher(fn))
	}
}

type watcher func(tags []string)

func (w watcher) drop(tags []string) { w(tags) }
