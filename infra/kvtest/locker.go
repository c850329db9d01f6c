package kvtest

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Lock is memory.Lock and redis.Lock: both alias this unnamed interface type.
type Lock = interface {
	Release(ctx context.Context) error
	Extend(ctx context.Context, ttl time.Duration) error
}

// Locker is the contract of memory.Locker and redis.Locker.
type Locker interface {
	Acquire(ctx context.Context, key string, ttl time.Duration) (Lock, error)
	TryAcquire(ctx context.Context, key string, ttl time.Duration) (Lock, bool, error)
}

// TestLocker runs the Locker contract; newLocker returns a locker with no
// locks held for one subtest.
func TestLocker(t *testing.T, newLocker func(t *testing.T) Locker) {
	cases := []struct {
		name string
		run  func(t *testing.T, l Locker)
	}{
		{"mutual exclusion under contention", lockExclusion},
		{"try acquire on a held lock", lockTryHeld},
		{"expiry lets another acquire", lockExpiry},
		{"stale owner cannot release or extend", lockStale},
		{"extend keeps the lock", lockExtend},
		{"release twice", lockReleaseTwice},
		{"acquire honours cancellation", lockCancel},
		{"invalid arguments", lockInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newLocker(t))
		})
	}
}

func mustTry(t *testing.T, l Locker, key string, ttl time.Duration) Lock {
	t.Helper()
	lk, ok, err := l.TryAcquire(background(t), key, ttl)
	noErr(t, "try acquire "+key, err)
	if !ok || lk == nil {
		t.Fatalf("try acquire %s: not acquired (lock = %v)", key, lk)
	}
	return lk
}

func wantHeld(t *testing.T, l Locker, key string) {
	t.Helper()
	lk, ok, err := l.TryAcquire(background(t), key, long)
	noErr(t, "try acquire "+key, err)
	if ok || lk != nil {
		t.Fatalf("try acquire %s succeeded on a held lock", key)
	}
}

func lockExclusion(t *testing.T, l Locker) {
	const workers, rounds = 6, 12
	var (
		counter, inside, overlaps atomic.Int64
		wg                        sync.WaitGroup
	)
	ctx := background(t)
	for range workers {
		wg.Go(func() {
			for range rounds {
				lk, err := l.Acquire(ctx, "counter", long)
				if err != nil {
					t.Errorf("acquire: %v", err)
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				v := counter.Load() // a lost update shows a broken lock
				runtime.Gosched()
				counter.Store(v + 1)
				inside.Add(-1)
				if err := lk.Release(ctx); err != nil {
					t.Errorf("release: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if got := counter.Load(); got != workers*rounds || overlaps.Load() != 0 {
		t.Fatalf("counter = %d (want %d), overlapping holders %d times", got, workers*rounds, overlaps.Load())
	}
}

func lockTryHeld(t *testing.T, l Locker) {
	a := mustTry(t, l, "k", long)
	wantHeld(t, l, "k")
	mustTry(t, l, "other", long) // keys are independent
	noErr(t, "release", a.Release(background(t)))
	mustTry(t, l, "k", long)
}

func lockExpiry(t *testing.T, l Locker) {
	mustTry(t, l, "k", short)
	lk, err := l.Acquire(background(t), "k", long)
	noErr(t, "acquire after expiry", err)
	noErr(t, "release", lk.Release(background(t)))
}

func lockStale(t *testing.T, l Locker) {
	ctx := background(t)
	stale := mustTry(t, l, "k", short)
	owner, err := l.Acquire(ctx, "k", long)
	noErr(t, "acquire after expiry", err)
	wantErr(t, "stale release", stale.Release(ctx), errs.ErrConflict)
	wantErr(t, "stale extend", stale.Extend(ctx, long), errs.ErrConflict)
	wantHeld(t, l, "k")
	noErr(t, "owner release", owner.Release(ctx))
}

// lockExtend times the original ttl with a second lock of the same ttl
// taken after the extension, instead of sleeping. The ttl is not short so
// that a stalled test cannot lose the lock before extending it.
func lockExtend(t *testing.T, l Locker) {
	const ttl = 2 * time.Second
	ctx := background(t)
	lk := mustTry(t, l, "k", ttl)
	noErr(t, "extend", lk.Extend(ctx, long))
	mustTry(t, l, "clock", ttl)
	_, err := l.Acquire(ctx, "clock", long)
	noErr(t, "acquire the clock after it expired", err)
	wantHeld(t, l, "k")
	noErr(t, "release after extend", lk.Release(ctx))
}

func lockReleaseTwice(t *testing.T, l Locker) {
	lk := mustTry(t, l, "k", long)
	noErr(t, "release", lk.Release(background(t)))
	wantErr(t, "second release", lk.Release(background(t)), errs.ErrConflict)
	wantErr(t, "extend after release", lk.Extend(background(t), long), errs.ErrConflict)
}

func lockCancel(t *testing.T, l Locker) {
	mustTry(t, l, "k", long)
	ctx, cancel := context.WithCancel(background(t))
	done := make(chan error, 1)
	go func() {
		_, err := l.Acquire(ctx, "k", long)
		done <- err
	}()
	cancel()
	err, _ := receive(t, "acquire to return after cancel", done)
	wantErr(t, "acquire with cancelled context", err, context.Canceled)

	ctx, cancel = context.WithTimeout(background(t), short)
	defer cancel()
	_, err = l.Acquire(ctx, "k", long)
	wantErr(t, "acquire past its deadline", err, context.DeadlineExceeded)
}

func lockInvalid(t *testing.T, l Locker) {
	ctx := background(t)
	_, _, err := l.TryAcquire(ctx, "k", 0)
	wantInvalid(t, "try acquire with zero ttl", err)
	_, err = l.Acquire(ctx, "", long)
	wantInvalid(t, "acquire with empty key", err)
	lk := mustTry(t, l, "k", long)
	wantInvalid(t, "extend with negative ttl", lk.Extend(ctx, -time.Second))
}
