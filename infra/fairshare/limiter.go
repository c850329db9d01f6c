// Package fairshare gives each tenant (a workspace) a bounded share of a
// pool every tenant shares: code-node workers, model calls, channel
// workers, indexing workers. A pool has a number of slots; one tenant may
// hold at most its share of them at once, so however much one tenant asks
// for, other tenants find slots free. A caller that finds no slot waits,
// for a bounded time, in its tenant's own line: a slot that frees goes to
// the waiting tenant holding the fewest slots (the longest waiting among
// equals), so a tenant with many waiters cannot crowd out one with a
// single waiter.
//
// The state is per process: each server process shares out its own
// slots.
package fairshare

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Outcomes a wait is observed with.
const (
	OutcomeRan      = "ran"      // got a slot
	OutcomeRefused  = "refused"  // waited its whole bound
	OutcomeCanceled = "canceled" // its context ended first
)

// Config configures a pool.
type Config struct {
	// Name names the pool in errors and metrics: "code", "python",
	// "model", "channel", "knowledge".
	Name string
	// Slots is how many callers hold a slot at once, all tenants
	// together; at least 1.
	Slots int
	// Share is the fraction of Slots one tenant may hold at once, in
	// (0, 1]; a tenant may always hold at least one slot. 0: 1 (no bound
	// per tenant).
	Share float64
	// Observe, when set, is told how long each caller waited for a slot
	// and how the wait ended (OutcomeRan, OutcomeRefused,
	// OutcomeCanceled).
	Observe func(pool string, wait time.Duration, outcome string)
}

// Limiter hands out a pool's slots. It is safe for concurrent use.
type Limiter struct {
	name    string
	slots   int
	cap     int
	observe func(string, time.Duration, string)

	mu      sync.Mutex
	used    int
	held    map[int64]int
	waiting map[int64][]*waiter // per tenant, in arrival order
	seq     uint64
}

type waiter struct {
	seq   uint64
	ready chan struct{} // closed when the slot is granted
	got   bool          // set under the limiter's lock when granted
}

// New returns a limiter of cfg.Slots slots (at least 1).
func New(cfg Config) *Limiter {
	slots := max(cfg.Slots, 1)
	share := cfg.Share
	if share <= 0 || share > 1 {
		share = 1
	}
	return &Limiter{name: cfg.Name, slots: slots, cap: ShareOf(slots, share), observe: cfg.Observe,
		held: map[int64]int{}, waiting: map[int64][]*waiter{}}
}

// ShareOf is how many of slots one tenant may hold with share: the
// fraction rounded up, at least 1 and at most slots.
func ShareOf(slots int, share float64) int {
	return min(max(int(math.Ceil(float64(slots)*share-1e-9)), 1), slots)
}

// Slots returns how many slots the pool has and how many one tenant may
// hold.
func (l *Limiter) Slots() (total, perTenant int) { return l.slots, l.cap }

// BusyError is the refusal of a caller that waited its whole bound.
type BusyError struct {
	Pool      string
	Total     int  // the pool's slots
	PerTenant int  // the most one tenant may hold
	AtShare   bool // the caller's tenant held its whole share
	Waited    time.Duration
}

func (e *BusyError) Error() string {
	if e.AtShare {
		return fmt.Sprintf("this workspace already uses its share of the %s pool (%d of %d at once) and none came free within %s",
			e.Pool, e.PerTenant, e.Total, e.Waited.Round(time.Millisecond))
	}
	return fmt.Sprintf("the %s pool is busy (all %d in use) and none came free within %s",
		e.Pool, e.Total, e.Waited.Round(time.Millisecond))
}

// Is makes a BusyError match errs.ErrRateLimited: the caller may try
// again shortly (the API answers 429).
func (e *BusyError) Is(target error) bool { return target == errs.ErrRateLimited }

// Enter takes a slot for tenant, waiting at most wait (0: not at all)
// or until ctx ends. leave gives the slot back; call it exactly once.
// Errors: *BusyError, or ctx's error.
func (l *Limiter) Enter(ctx context.Context, tenant int64, wait time.Duration) (leave func(), err error) {
	start := time.Now()
	l.mu.Lock()
	if l.free(tenant) {
		l.take(tenant)
		l.mu.Unlock()
		l.note(0, OutcomeRan)
		return l.leaver(tenant), nil
	}
	if err := ctx.Err(); err != nil || wait <= 0 {
		atShare := l.held[tenant] >= l.cap
		l.mu.Unlock()
		if err != nil {
			return nil, err
		}
		l.note(0, OutcomeRefused)
		return nil, &BusyError{Pool: l.name, Total: l.slots, PerTenant: l.cap, AtShare: atShare}
	}
	l.seq++
	w := &waiter{seq: l.seq, ready: make(chan struct{})}
	l.waiting[tenant] = append(l.waiting[tenant], w)
	l.mu.Unlock()
	return l.await(ctx, tenant, w, start, wait)
}

// await waits for w's slot.
func (l *Limiter) await(ctx context.Context, tenant int64, w *waiter, start time.Time, wait time.Duration) (func(), error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	var cause error
	select {
	case <-w.ready:
		l.note(time.Since(start), OutcomeRan)
		return l.leaver(tenant), nil
	case <-ctx.Done():
		cause = ctx.Err()
	case <-t.C:
	}
	l.mu.Lock()
	if w.got { // granted as the wait ended
		l.mu.Unlock()
		if cause != nil {
			l.release(tenant)
			l.note(time.Since(start), OutcomeCanceled)
			return nil, cause
		}
		l.note(time.Since(start), OutcomeRan)
		return l.leaver(tenant), nil
	}
	l.remove(tenant, w)
	atShare := l.held[tenant] >= l.cap
	l.mu.Unlock()
	waited := time.Since(start)
	if cause != nil {
		l.note(waited, OutcomeCanceled)
		return nil, cause
	}
	l.note(waited, OutcomeRefused)
	return nil, &BusyError{Pool: l.name, Total: l.slots, PerTenant: l.cap, AtShare: atShare, Waited: waited}
}

// free reports whether tenant may take a slot now. l.mu is held.
func (l *Limiter) free(tenant int64) bool {
	return l.used < l.slots && l.held[tenant] < l.cap && len(l.waiting[tenant]) == 0
}

// take counts a slot as tenant's. l.mu is held.
func (l *Limiter) take(tenant int64) {
	l.used++
	l.held[tenant]++
}

func (l *Limiter) leaver(tenant int64) func() {
	var once sync.Once
	return func() { once.Do(func() { l.release(tenant) }) }
}

// release gives tenant's slot back and hands free slots to waiters.
func (l *Limiter) release(tenant int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.used--
	if l.held[tenant]--; l.held[tenant] <= 0 {
		delete(l.held, tenant)
	}
	for l.used < l.slots {
		next, ok := l.next()
		if !ok {
			return
		}
		w := l.waiting[next][0]
		l.remove(next, w)
		l.take(next)
		w.got = true
		close(w.ready)
	}
}

// next picks the tenant whose first waiter gets the next slot: among the
// tenants below their share, the one holding the fewest slots, then the
// one waiting longest. l.mu is held.
func (l *Limiter) next() (int64, bool) {
	var best int64
	var bestW *waiter
	for tenant, ws := range l.waiting {
		h := l.held[tenant]
		if h >= l.cap {
			continue
		}
		if bestW == nil || h < l.held[best] || (h == l.held[best] && ws[0].seq < bestW.seq) {
			best, bestW = tenant, ws[0]
		}
	}
	return best, bestW != nil
}

// remove takes w out of tenant's line. l.mu is held.
func (l *Limiter) remove(tenant int64, w *waiter) {
	ws := l.waiting[tenant]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(l.waiting, tenant)
		return
	}
	l.waiting[tenant] = ws
}

func (l *Limiter) note(wait time.Duration, outcome string) {
	if l.observe != nil {
		l.observe(l.name, wait, outcome)
	}
}
