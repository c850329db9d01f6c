package memory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Lock is a held lock. Release gives it up and Extend sets its time to live
// anew; both return an error matching errs.ErrConflict when the lock is no
// longer held by its owner (it expired, whether or not another owner took
// it since), and never touch another owner's lock.
//
// Lock aliases an unnamed interface type, so memory.Lock and redis.Lock are
// the same type.
type Lock = interface {
	Release(ctx context.Context) error
	Extend(ctx context.Context, ttl time.Duration) error
}

// Locker hands out exclusive, expiring locks on string keys within this
// process. It is safe for concurrent use.
type Locker struct {
	mu    sync.Mutex
	held  map[string]*heldLock
	token uint64
	ops   int
}

type heldLock struct {
	token    uint64
	expires  time.Time
	released chan struct{} // closed when released, to wake waiters
}

// NewLocker returns a Locker with no locks held.
func NewLocker() *Locker {
	return &Locker{held: make(map[string]*heldLock)}
}

// TryAcquire takes the lock on key for ttl if it is free and reports whether
// it did. A non-positive ttl or an empty key returns errs.ErrInvalid.
func (l *Locker) TryAcquire(_ context.Context, key string, ttl time.Duration) (Lock, bool, error) {
	if err := checkLockArgs(key, ttl); err != nil {
		return nil, false, fmt.Errorf("lock %q: %w", key, err)
	}
	if lk, _, _ := l.try(key, ttl); lk != nil {
		return lk, true, nil
	}
	return nil, false, nil // not a nil *memLock inside a non-nil Lock
}

// Acquire waits until it takes the lock on key for ttl, waking when the
// holder releases it or it expires. It returns ctx's error if ctx is done
// first, and errs.ErrInvalid for the arguments TryAcquire refuses.
func (l *Locker) Acquire(ctx context.Context, key string, ttl time.Duration) (Lock, error) {
	if err := checkLockArgs(key, ttl); err != nil {
		return nil, fmt.Errorf("lock %q: %w", key, err)
	}
	for {
		lk, released, expires := l.try(key, ttl)
		if lk != nil {
			return lk, nil
		}
		// An Extend is not signalled; waking at the old expiry just retries.
		t := time.NewTimer(time.Until(expires))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lock %q: %w", key, ctx.Err())
		case <-released:
		case <-t.C:
		}
		t.Stop()
	}
}

// try takes the lock if free; otherwise it returns when to try again: once
// released is closed or at expires.
func (l *Locker) try(key string, ttl time.Duration) (lk *memLock, released <-chan struct{}, expires time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.sweepSometimes(now)
	if h, ok := l.held[key]; ok && now.Before(h.expires) {
		return nil, h.released, h.expires
	}
	l.token++
	l.held[key] = &heldLock{token: l.token, expires: now.Add(ttl), released: make(chan struct{})}
	return &memLock{l: l, key: key, token: l.token}, nil, time.Time{}
}

// sweepSometimes drops expired locks every 1024 calls so that keys locked
// once are not kept forever; l.mu must be held.
func (l *Locker) sweepSometimes(now time.Time) {
	if l.ops++; l.ops%1024 != 0 {
		return
	}
	for k, h := range l.held {
		if !now.Before(h.expires) {
			delete(l.held, k)
			close(h.released)
		}
	}
}

// owned returns the lock entry if token still holds key; l.mu must be held.
func (l *Locker) owned(key string, token uint64) (*heldLock, error) {
	h, ok := l.held[key]
	if !ok || h.token != token || !time.Now().Before(h.expires) {
		return nil, errs.Conflict("lock %q is no longer held by this owner", key)
	}
	return h, nil
}

type memLock struct {
	l     *Locker
	key   string
	token uint64
}

func (m *memLock) Release(context.Context) error {
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	h, err := m.l.owned(m.key, m.token)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	delete(m.l.held, m.key)
	close(h.released)
	return nil
}

func (m *memLock) Extend(_ context.Context, ttl time.Duration) error {
	if err := checkTTL("ttl", ttl, false); err != nil {
		return fmt.Errorf("extend lock %q: %w", m.key, err)
	}
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	h, err := m.l.owned(m.key, m.token)
	if err != nil {
		return fmt.Errorf("extend: %w", err)
	}
	h.expires = time.Now().Add(ttl)
	return nil
}

func checkLockArgs(key string, ttl time.Duration) error {
	if err := checkName("key", key); err != nil {
		return err
	}
	return checkTTL("ttl", ttl, false)
}
