package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// RateLimiter limits calls per key with a sliding-window log: a call is
// allowed if fewer than limit calls were allowed for the key in the window
// ending now. Refused calls are not counted. It keeps one timestamp per
// allowed call, so it suits limits up to a few thousand per window. It is
// safe for concurrent use.
type RateLimiter struct {
	mu    sync.Mutex
	logs  map[string]*callLog
	calls int
}

type callLog struct {
	times  []time.Time // allowed calls, oldest first
	window time.Duration
}

// NewRateLimiter returns a RateLimiter with no history.
func NewRateLimiter() *RateLimiter {
	return &RateLimiter{logs: make(map[string]*callLog)}
}

// Allow reports whether one more call for key fits in limit calls per
// window, recording it if so. When it does not, retryAfter is how long until
// it would (always positive). An empty key or a non-positive limit or window
// returns errs.ErrInvalid.
func (r *RateLimiter) Allow(_ context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	if err := checkLimitArgs(key, limit, window); err != nil {
		return false, 0, fmt.Errorf("rate limit %q: %w", key, err)
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgetIdle(now)
	l := r.logs[key]
	if l == nil {
		l = &callLog{}
		r.logs[key] = l
	}
	l.window = window
	l.prune(now)
	if n := len(l.times); n >= limit {
		// Enough calls must age out to leave room for one more.
		return false, l.times[n-limit].Add(window).Sub(now), nil
	}
	l.times = append(l.times, now)
	return true, 0, nil
}

// prune drops calls that are a full window old or older.
func (l *callLog) prune(now time.Time) {
	cut := now.Add(-l.window)
	i := 0
	for i < len(l.times) && !l.times[i].After(cut) {
		i++
	}
	if i > 0 {
		l.times = append(l.times[:0], l.times[i:]...)
	}
}

// forgetIdle drops, every 1024 calls, the keys with no call in their window;
// r.mu must be held.
func (r *RateLimiter) forgetIdle(now time.Time) {
	if r.calls++; r.calls%1024 != 0 {
		return
	}
	for k, l := range r.logs {
		if n := len(l.times); n == 0 || !l.times[n-1].After(now.Add(-l.window)) {
			delete(r.logs, k)
		}
	}
}

func checkLimitArgs(key string, limit int, window time.Duration) error {
	if err := checkName("key", key); err != nil {
		return err
	}
	if limit <= 0 {
		return errs.Invalid("limit", "must be positive, got %d", limit)
	}
	return checkTTL("window", window, false)
}
