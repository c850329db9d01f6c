package fairshare

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func enter(t *testing.T, l *Limiter, tenant int64) func() {
	t.Helper()
	leave, err := l.Enter(context.Background(), tenant, 0)
	if err != nil {
		t.Fatalf("tenant %d: %v", tenant, err)
	}
	return leave
}

func TestShareOf(t *testing.T) {
	for _, c := range []struct {
		slots int
		share float64
		want  int
	}{{8, 0.25, 2}, {4, 0.25, 1}, {2, 0.25, 1}, {10, 0.25, 3}, {8, 1, 8}, {1, 0.01, 1}, {64, 0.25, 16}} {
		if got := ShareOf(c.slots, c.share); got != c.want {
			t.Errorf("ShareOf(%d, %g) = %d, want %d", c.slots, c.share, got, c.want)
		}
	}
}

func TestOneTenantCannotTakeEverySlot(t *testing.T) {
	l := New(Config{Name: "code", Slots: 4, Share: 0.5})
	enter(t, l, 1)
	enter(t, l, 1)
	_, err := l.Enter(context.Background(), 1, 10*time.Millisecond)
	var busy *BusyError
	if !errors.As(err, &busy) || !busy.AtShare || busy.PerTenant != 2 || busy.Total != 4 {
		t.Fatalf("third slot of tenant 1: %v, want a BusyError at its share of 2 of 4", err)
	}
	enter(t, l, 2) // the others still find slots
	enter(t, l, 3)
	_, err = l.Enter(context.Background(), 4, 0)
	if !errors.As(err, &busy) || busy.AtShare {
		t.Fatalf("tenant 4 on a full pool: %v, want a BusyError of a busy pool", err)
	}
}

func TestWaiterGetsTheFreedSlot(t *testing.T) {
	l := New(Config{Slots: 1})
	leave := enter(t, l, 1)
	got := make(chan error, 1)
	go func() {
		leave2, err := l.Enter(context.Background(), 2, time.Second)
		if err == nil {
			leave2()
		}
		got <- err
	}()
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.waiting) == 1 })
	leave()
	leave() // a second call does nothing
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if l.used != 0 || len(l.held) != 0 {
		t.Fatalf("after every leave: used %d, held %v", l.used, l.held)
	}
}

// A freed slot goes to the tenant holding the fewest, not to the one that
// queued first.
func TestFreedSlotGoesToTheTenantHoldingFewest(t *testing.T) {
	l := New(Config{Slots: 3, Share: 1})
	a1 := enter(t, l, 1)
	enter(t, l, 1)
	enter(t, l, 2)
	order := make(chan int64, 2)
	start := func(tenant int64) {
		go func() {
			leave, err := l.Enter(context.Background(), tenant, time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			order <- tenant
			leave()
		}()
	}
	start(1) // queued first, but tenant 1 holds two
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.waiting) == 1 })
	start(3) // holds none
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.waiting) == 2 })
	a1()
	if first := <-order; first != 3 {
		t.Fatalf("the freed slot went to tenant %d, want 3", first)
	}
	if second := <-order; second != 1 {
		t.Fatalf("then tenant %d, want 1", second)
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	l := New(Config{Slots: 1, Observe: func(_ string, _ time.Duration, outcome string) {
		mu.Lock()
		seen = append(seen, outcome)
		mu.Unlock()
	}})
	enter(t, l, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if _, err := l.Enter(ctx, 2, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline", err)
	}
	if _, err := l.Enter(context.Background(), 2, 5*time.Millisecond); err == nil {
		t.Fatal("a full pool let a caller in")
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{OutcomeRan, OutcomeCanceled, OutcomeRefused}; len(seen) != 3 || seen[0] != want[0] || seen[1] != want[1] || seen[2] != want[2] {
		t.Fatalf("observed %v, want %v", seen, want)
	}
	if len(l.waiting) != 0 {
		t.Fatalf("waiters left behind: %v", l.waiting)
	}
}

// Three tenants keep every slot of their share busy; a fourth still gets
// a slot at once, every time.
func TestHostileTenantsLeaveRoom(t *testing.T) {
	l := New(Config{Slots: 8, Share: 0.25})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for tenant := int64(1); tenant <= 3; tenant++ {
		for range 6 { // more callers than their share
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					leave, err := l.Enter(ctx, tenant, time.Millisecond)
					if err == nil {
						time.Sleep(100 * time.Microsecond)
						leave()
					}
				}
			}()
		}
	}
	for range 200 {
		leave, err := l.Enter(context.Background(), 4, 0)
		if err != nil {
			t.Fatalf("the fourth tenant was refused: %v", err)
		}
		leave()
	}
	cancel()
	wg.Wait()
	if l.used != 0 || len(l.held) != 0 || len(l.waiting) != 0 {
		t.Fatalf("state left behind: used %d, held %v, waiting %v", l.used, l.held, l.waiting)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 2s")
		}
		time.Sleep(time.Millisecond)
	}
}
