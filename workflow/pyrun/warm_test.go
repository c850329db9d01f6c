package pyrun

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWarmPoolFollowsDemand: a burst of runs grows the pool towards
// WarmMax, never past it nor starting more than Starting at once; once
// the burst is over the sandboxes above Warm end after WarmIdle.
func TestWarmPoolFollowsDemand(t *testing.T) {
	r := newRunner(t, Limits{Warm: 1, WarmMax: 4, WarmIdle: 300 * time.Millisecond, Starting: 2, Parallel: 4})
	defer r.Close()
	stop := make(chan struct{})
	var over atomic.Value
	go func() { // watch the bounds all along
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			r.pool.mu.Lock()
			idle, starting := len(r.pool.idle), r.pool.starting
			r.pool.mu.Unlock()
			if idle+starting > 4 || starting > 2 {
				over.Store([2]int{idle, starting})
			}
		}
	}()
	code := "def main(args):\n    return {}\n"
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, err := r.Run(context.Background(), code, nil, 0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	busy := make(chan struct{})
	go func() { // the demand goes on however slowly this machine starts sandboxes
		for {
			select {
			case <-busy:
				return
			case <-time.After(100 * time.Millisecond):
			}
			r.pool.mu.Lock()
			r.pool.demand.note(time.Now())
			r.pool.mu.Unlock()
			r.refill()
		}
	}()
	waitWarm(t, r, 4)
	close(busy)
	r.pool.mu.Lock()
	grown := append([]idleWorker(nil), r.pool.idle...)
	r.pool.mu.Unlock()
	waitIdle(t, r, 1, 5*time.Second) // the second of demand and WarmIdle past
	close(stop)
	if o := over.Load(); o != nil {
		t.Fatalf("the pool held %v (warm, starting): more than WarmMax 4 or Starting 2", o)
	}
	for deadline := time.Now().Add(5 * time.Second); ended(grown) != 3; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) { // the pool ends them after taking them out
			t.Fatalf("%d of the 4 warm sandboxes ended after the burst, want 3", ended(grown))
		}
	}
}

func ended(ws []idleWorker) int {
	n := 0
	for _, iw := range ws {
		if !iw.w.alive() {
			n++
		}
	}
	return n
}

// waitIdle waits until the pool holds exactly n warm sandboxes.
func waitIdle(t *testing.T, r *Runner, n int, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); r.pool.idleCount() != n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pool holds %d warm sandboxes after %s, want %d", r.pool.idleCount(), within, n)
		}
	}
}

type tenantKey struct{}

func tenantOf(ctx context.Context) int64 {
	id, _ := ctx.Value(tenantKey{}).(int64)
	return id
}

// TestReserveHoldsUnderDrain: a workspace running its whole share of
// endless loops starts every further run cold, however many it starts:
// the reserve stays warm, and a quiet workspace's run takes from it. (No
// fork servers: the pool serves alone, as it does a workspace's first run
// and every run when servers cannot start.)
func TestReserveHoldsUnderDrain(t *testing.T) {
	r, err := New(Config{Limits: Limits{Warm: 2, WarmMax: 2, Parallel: 8, PerTenant: 2, Zygotes: -1}, Tenant: tenantOf})
	if err != nil {
		newRunner(t, Limits{}) // skips, or fails in CI
		t.Fatal(err)
	}
	defer r.Close()
	quick := "def main(args):\n    return {}\n"
	quiet := context.WithValue(context.Background(), tenantKey{}, int64(2))
	if _, err := r.Run(quiet, quick, nil, 0); err != nil {
		t.Fatal(err)
	}
	waitWarm(t, r, 2)
	hostile, cancel := context.WithCancel(context.WithValue(context.Background(), tenantKey{}, int64(1)))
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for range 2 { // its share of endless loops
		wg.Go(func() { _, _ = r.Run(hostile, "def main(args):\n    while True:\n        pass\n", nil, 0) })
	}
	for deadline := time.Now().Add(10 * time.Second); running(r, 1) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the endless loops did not start")
		}
	}
	waitWarm(t, r, 2)
	before := idleWorkers(r)
	for range 4 { // the drain: more runs of the workspace at its share
		if _, err := r.Run(hostile, quick, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	if after := idleWorkers(r); len(after) != 2 || !same(after, before) {
		t.Fatal("the workspace at its share took warm sandboxes of the reserve")
	}
	if _, err := r.Run(quiet, quick, nil, 0); err != nil {
		t.Fatal(err)
	}
	if after := idleWorkers(r); len(after) == 2 && same(after, before) {
		t.Fatal("the quiet workspace's run did not take a warm sandbox")
	}
}

func running(r *Runner, tenant int64) int {
	r.pool.mu.Lock()
	defer r.pool.mu.Unlock()
	return r.pool.running[tenant]
}

// idleWorkers is the warm sandboxes.
func idleWorkers(r *Runner) map[*worker]bool {
	r.pool.mu.Lock()
	defer r.pool.mu.Unlock()
	m := map[*worker]bool{}
	for _, iw := range r.pool.idle {
		m[iw.w] = true
	}
	return m
}

func same(a, b map[*worker]bool) bool {
	for w := range b {
		if !a[w] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestReserveRule: the last Warm sandboxes go only to workspaces running
// fewer than their share; above the reserve anyone takes.
func TestReserveRule(t *testing.T) {
	p := newPool(Limits{Warm: 2, WarmMax: 4, Parallel: 8, PerTenant: 2}.withDefaults())
	fake := func() idleWorker { return idleWorker{w: &worker{exited: make(chan struct{})}, since: time.Now()} }
	p.idle = []idleWorker{fake(), fake(), fake()}
	defer p.enter(1)()
	defer p.enter(1)() // workspace 1 runs its share of 2 (this run included)
	defer p.enter(2)() // workspace 2 runs one
	now := time.Now()
	if w, _, _ := p.takeIdle(1, now); w == nil {
		t.Fatal("the workspace at its share did not get the sandbox above the reserve")
	}
	w, atShare, _ := p.takeIdle(1, now)
	if w != nil || atShare == nil || len(p.idle) != 2 {
		t.Fatalf("the workspace at its share took from the reserve (%d left)", len(p.idle))
	}
	for range 2 {
		if w, _, _ := p.takeIdle(2, now); w == nil {
			t.Fatal("the workspace below its share did not get the reserve")
		}
	}
	// The pool's next sandboxes, with the reserve empty: the first goes to
	// a run of a workspace below its share that waits, though it came
	// later; then the reserve fills before the one at its share gets any.
	_, below, _ := p.takeIdle(2, now)
	p.place(fake().w, now)
	if len(below.got) != 1 || len(atShare.got) != 0 {
		t.Fatal("the sandbox the pool started did not go to the workspace below its share")
	}
	p.place(fake().w, now)
	p.place(fake().w, now)
	if len(p.idle) != 2 || len(atShare.got) != 0 {
		t.Fatalf("with %d warm the workspace at its share got one of the reserve", len(p.idle))
	}
	p.place(fake().w, now)
	if len(p.idle) != 2 || len(atShare.got) != 1 {
		t.Fatal("above the reserve the workspace at its share got none")
	}
	if got := p.target(now); got != 4 {
		t.Fatalf("after 5 takes within a second the pool keeps %d warm, want WarmMax 4", got)
	}
	if got := p.target(now.Add(1100 * time.Millisecond)); got != 2 {
		t.Fatalf("a second later it keeps %d, want Warm 2", got)
	}
}
