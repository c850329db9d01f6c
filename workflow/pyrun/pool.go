package pyrun

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrBusy is returned by runs that waited their whole time limit for a
// turn while Limits.Parallel sandboxes were running.
var ErrBusy = errors.New("too many Python code nodes were running at once; this one waited its whole time limit for a turn and did not start")

// pool holds the warm sandboxes and bounds the running ones. Each sandbox
// serves one run and ends: a warm one is never handed to a second run, of
// the same workspace or another.
//
// How many wait warm follows demand: as many as runs took in the last
// second (demand), at least Limits.Warm and at most Limits.WarmMax, started
// Limits.Starting at a time; one idle longer than Limits.WarmIdle while the
// pool holds more than demand asks is ended. The last Limits.Warm idle
// sandboxes are a reserve for workspaces running fewer sandboxes than their
// share (Limits.PerTenant): a workspace that holds its whole share cannot
// take them, so its endless runs cannot leave another workspace a cold
// start. A run that finds none it may take starts its own and takes
// whichever is ready first, its own or one the pool was starting
// (handoff.go).
type pool struct {
	lim   Limits
	slots chan struct{} // one per running sandbox

	mu       sync.Mutex
	idle     []idleWorker // oldest first; runs take the newest
	waiting  []*waiter    // runs that found none they may take, oldest first
	starting int          // sandboxes being started for the pool
	running  map[int64]int
	demand   demand
	closed   bool
	stop     chan struct{} // closed by Close: ends the reaper
}

// idleWorker is a warm sandbox and when it became ready.
type idleWorker struct {
	w     *worker
	since time.Time
}

func newPool(lim Limits) *pool {
	return &pool{lim: lim, slots: make(chan struct{}, lim.Parallel), running: map[int64]int{},
		demand: demand{window: time.Second, keep: lim.WarmMax}, stop: make(chan struct{})}
}

// acquire takes a turn to run, waiting at most wait or until ctx ends.
func (p *pool) acquire(ctx context.Context, wait time.Duration) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return ErrBusy
	}
}

func (p *pool) release() { <-p.slots }

// enter counts a run of tenant as running; the returned func ends it.
func (p *pool) enter(tenant int64) (leave func()) {
	p.mu.Lock()
	p.running[tenant]++
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		if p.running[tenant]--; p.running[tenant] <= 0 {
			delete(p.running, tenant)
		}
		p.mu.Unlock()
	}
}

// target is how many sandboxes the pool keeps warm now. p.mu is held.
func (p *pool) target(now time.Time) int {
	return min(max(p.demand.count(now), p.lim.Warm), p.lim.WarmMax)
}

// takeIdle returns the newest warm sandbox tenant may take, or else a
// waiter, registered, that the run waits on. tenant's run is already
// counted running.
func (p *pool) takeIdle(tenant int64, now time.Time) (w *worker, wt *waiter, dead int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.demand.note(now)
	// Below its share a workspace may take the reserve too; with a share
	// of one sandbox per workspace no workspace is below it, and the
	// reserve is everyone's.
	mayReserve := p.lim.PerTenant <= 1 || p.running[tenant] < p.lim.PerTenant
	for len(p.idle) > 0 && (mayReserve || len(p.idle) > p.lim.Warm) {
		last := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if last.w.alive() {
			return last.w, nil, dead
		}
		dead++
		go last.w.kill()
	}
	wt = &waiter{mayReserve: mayReserve, got: make(chan started, 1)}
	p.waiting = append(p.waiting, wt)
	return nil, wt, dead
}

// toStart reserves and returns how many sandboxes the pool should start
// now. p.mu is held.
func (p *pool) toStart(now time.Time) int {
	if p.closed {
		return 0
	}
	n := min(p.target(now)-len(p.idle)-p.starting, p.lim.Starting-p.starting)
	if n <= 0 {
		return 0
	}
	p.starting += n
	return n
}

// take returns a warm worker tenant may take, or else starts one and
// takes whichever comes first, that one or one the pool was starting;
// and refills the pool in the background.
func (r *Runner) take(tenant int64) (*worker, error) {
	w, wt, dead := r.pool.takeIdle(tenant, time.Now())
	for range dead {
		r.log.Warn("a warm Python sandbox had died; starting another")
	}
	r.refill()
	if w != nil {
		return w, nil
	}
	go r.startFor(wt)
	got := <-wt.got
	return got.w, got.err
}

// refill starts the sandboxes the pool lacks, each in the background.
func (r *Runner) refill() {
	p := r.pool
	p.mu.Lock()
	n := p.toStart(time.Now())
	p.mu.Unlock()
	for range n {
		go r.startWarm()
	}
}

// startWarm starts one sandbox for the pool, then refills again: the
// pool may still lack some that Limits.Starting held back.
func (r *Runner) startWarm() {
	w, err := r.start()
	p := r.pool
	p.mu.Lock()
	p.starting--
	if err != nil {
		p.mu.Unlock()
		r.log.Warn("a Python sandbox did not start", "err", err)
		return // no retry here: the next run's refill tries again
	}
	if p.closed {
		p.mu.Unlock()
		go w.kill()
		return
	}
	p.place(w, time.Now())
	p.mu.Unlock()
	r.refill()
}

// Close ends the warm sandboxes and the fork servers (each once its runs
// under way finish). Later runs start their sandbox cold.
func (r *Runner) Close() {
	endAll(r.zygotes.expired(time.Now(), true))
	p := r.pool
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.stop)
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, iw := range idle {
		iw.w.kill()
	}
}

// idleCount is how many sandboxes wait warm.
func (p *pool) idleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}
