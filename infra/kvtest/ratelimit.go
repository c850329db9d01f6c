package kvtest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// RateLimiter is the contract of memory.RateLimiter and redis.RateLimiter.
type RateLimiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error)
}

// TestRateLimiter runs the RateLimiter contract; newLimiter returns a
// limiter with no history for one subtest.
func TestRateLimiter(t *testing.T, newLimiter func(t *testing.T) RateLimiter) {
	cases := []struct {
		name string
		run  func(t *testing.T, r RateLimiter)
	}{
		{"exactly limit per window", limitExact},
		{"keys are independent", limitKeys},
		{"window resets", limitReset},
		{"concurrent callers share the limit", limitConcurrent},
		{"invalid arguments", limitInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newLimiter(t))
		})
	}
}

func allow(t *testing.T, r RateLimiter, key string, limit int, window time.Duration) (bool, time.Duration) {
	t.Helper()
	ok, retry, err := r.Allow(background(t), key, limit, window)
	noErr(t, "allow "+key, err)
	return ok, retry
}

// use spends limit calls on key and checks the next one is refused.
func use(t *testing.T, r RateLimiter, key string, limit int, window time.Duration) {
	t.Helper()
	for i := range limit {
		if ok, _ := allow(t, r, key, limit, window); !ok {
			t.Fatalf("call %d of %d on %s refused", i+1, limit, key)
		}
	}
	ok, retry := allow(t, r, key, limit, window)
	if ok {
		t.Fatalf("call %d on %s allowed with limit %d", limit+1, key, limit)
	}
	if retry <= 0 || retry > window {
		t.Fatalf("refused with retryAfter %s, want within (0, %s]", retry, window)
	}
}

func limitExact(t *testing.T, r RateLimiter) {
	use(t, r, "user:1", 5, long)
	if ok, _ := allow(t, r, "user:1", 5, long); ok {
		t.Fatal("a refused call was counted as room for another")
	}
}

func limitKeys(t *testing.T, r RateLimiter) {
	use(t, r, "a", 2, long)
	use(t, r, "b", 2, long)
}

// limitReset's window is long enough that a stalled test still makes its
// first four calls inside one window.
func limitReset(t *testing.T, r RateLimiter) {
	const window = time.Second
	use(t, r, "k", 3, window)
	eventually(t, "the window to pass", func() bool {
		ok, _ := allow(t, r, "k", 3, window)
		return ok
	})
}

func limitConcurrent(t *testing.T, r RateLimiter) {
	const callers, limit = 20, 7
	var (
		allowed atomic.Int64
		wg      sync.WaitGroup
	)
	ctx := background(t)
	for range callers {
		wg.Go(func() {
			ok, _, err := r.Allow(ctx, "shared", limit, long)
			if err != nil {
				t.Errorf("allow: %v", err)
			}
			if ok {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != limit {
		t.Fatalf("%d of %d concurrent calls allowed, want %d", got, callers, limit)
	}
}

func limitInvalid(t *testing.T, r RateLimiter) {
	ctx := background(t)
	_, _, err := r.Allow(ctx, "k", 0, time.Second)
	wantInvalid(t, "zero limit", err)
	_, _, err = r.Allow(ctx, "k", 1, 0)
	wantInvalid(t, "zero window", err)
	_, _, err = r.Allow(ctx, "", 1, time.Second)
	wantInvalid(t, "empty key", err)
}
