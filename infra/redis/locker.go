package redis

import (
	"context"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Lock is a held lock. Release gives it up and Extend sets its time to live
// anew; both return an error matching errs.ErrConflict when the lock is no
// longer held by its owner (it expired, whether or not another owner took
// it since), and never touch another owner's lock. Redis failures match
// errs.ErrUnavailable.
//
// Lock aliases an unnamed interface type, so memory.Lock and redis.Lock are
// the same type.
type Lock = interface {
	Release(ctx context.Context) error
	Extend(ctx context.Context, ttl time.Duration) error
}

// The owner's random token is the key's value; only the owner's scripts
// touch the key.
const (
	acquireScript = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return -3 end
return redis.call('PTTL', KEYS[1])`
	releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`
	extendScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`
)

// acquired is what acquireScript returns on success; anything else is the
// holder's remaining time to live in milliseconds.
const acquired = -3

// Backoff bounds between attempts of Acquire.
const (
	minBackoff = 2 * time.Millisecond
	maxBackoff = 100 * time.Millisecond
)

// Locker hands out exclusive, expiring locks on string keys, shared by every
// process using the same Redis and prefix (a single-instance Redis lock, not
// Redlock). It is safe for concurrent use.
type Locker struct {
	client                   goredis.UniversalClient
	keys                     keyspace
	acquire, release, extend *goredis.Script
}

// NewLocker returns a Locker keeping its locks under prefix + "lock:".
func NewLocker(client goredis.UniversalClient, prefix string) *Locker {
	return &Locker{
		client:  client,
		keys:    keyspace(prefix),
		acquire: goredis.NewScript(acquireScript),
		release: goredis.NewScript(releaseScript),
		extend:  goredis.NewScript(extendScript),
	}
}

// TryAcquire takes the lock on key for ttl if it is free and reports whether
// it did. A non-positive ttl or an empty key returns errs.ErrInvalid; Redis
// failures match errs.ErrUnavailable.
func (l *Locker) TryAcquire(ctx context.Context, key string, ttl time.Duration) (Lock, bool, error) {
	if err := checkLockArgs(key, ttl); err != nil {
		return nil, false, fmt.Errorf("lock %q: %w", key, err)
	}
	lk, _, err := l.try(ctx, key, ttl)
	if err != nil || lk == nil {
		return nil, false, err
	}
	return lk, true, nil
}

// Acquire waits until it takes the lock on key for ttl, polling with a
// jittered backoff of up to 100ms that never overshoots the holder's
// expiry. It returns ctx's error if ctx is done first, and the errors of
// TryAcquire.
func (l *Locker) Acquire(ctx context.Context, key string, ttl time.Duration) (Lock, error) {
	if err := checkLockArgs(key, ttl); err != nil {
		return nil, fmt.Errorf("lock %q: %w", key, err)
	}
	backoff := minBackoff
	for {
		lk, left, err := l.try(ctx, key, ttl)
		if err != nil || lk != nil {
			return lk, err
		}
		wait := backoff/2 + mrand.N(backoff/2+1)
		if left > 0 {
			wait = min(wait, left)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lock %q: %w", key, ctx.Err())
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// try takes the lock if free; otherwise it returns the holder's remaining
// time to live.
func (l *Locker) try(ctx context.Context, key string, ttl time.Duration) (*redisLock, time.Duration, error) {
	lk := &redisLock{l: l, key: l.keys.name("lock", key), token: rand.Text()}
	res, err := l.acquire.Run(ctx, l.client, []string{lk.key}, lk.token, ms(ttl)).Int64()
	if err != nil {
		return nil, 0, fail(fmt.Sprintf("lock %q", key), err)
	}
	if res == acquired {
		return lk, 0, nil
	}
	return nil, time.Duration(res) * time.Millisecond, nil
}

type redisLock struct {
	l     *Locker
	key   string
	token string
}

func (r *redisLock) Release(ctx context.Context) error {
	n, err := r.l.release.Run(ctx, r.l.client, []string{r.key}, r.token).Int64()
	if err != nil {
		return fail("release lock", err)
	}
	if n == 0 {
		return fmt.Errorf("release: %w", errs.Conflict("lock %q is no longer held by this owner", r.key))
	}
	return nil
}

func (r *redisLock) Extend(ctx context.Context, ttl time.Duration) error {
	if err := checkTTL("ttl", ttl, false); err != nil {
		return fmt.Errorf("extend lock %q: %w", r.key, err)
	}
	n, err := r.l.extend.Run(ctx, r.l.client, []string{r.key}, r.token, ms(ttl)).Int64()
	if err != nil {
		return fail("extend lock", err)
	}
	if n == 0 {
		return fmt.Errorf("extend: %w", errs.Conflict("lock %q is no longer held by this owner", r.key))
	}
	return nil
}

func checkLockArgs(key string, ttl time.Duration) error {
	if err := checkName("key", key); err != nil {
		return err
	}
	return checkTTL("ttl", ttl, false)
}
