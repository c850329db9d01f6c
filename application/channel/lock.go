package channel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
)

// Lock is a held lock (infra/memory.Lock and infra/redis.Lock are the
// same type). Release gives it up; Extend sets its time to live anew.
type Lock = interface {
	Release(ctx context.Context) error
	Extend(ctx context.Context, ttl time.Duration) error
}

// Locker hands out exclusive, expiring locks on keys;
// *infra/memory.Locker and *infra/redis.Locker implement it.
type Locker interface {
	// Acquire waits until it holds the lock on key for ttl, or ctx ends.
	Acquire(ctx context.Context, key string, ttl time.Duration) (Lock, error)
}

// holdConversation takes the lock of one platform conversation of a
// channel, so that its events are answered one after another: the first
// messages of a new chat end in one conversation, and each turn sees the
// one before in its history. The lock is renewed while held, and given
// up by the returned release.
func (r *Runtime) holdConversation(ctx context.Context, c *channel.Channel, key string) (release func(), err error) {
	sum := sha256.Sum256([]byte(key))
	name := "channel-conversation:" + strconv.FormatInt(c.ID, 10) + ":" + hex.EncodeToString(sum[:12])
	lk, err := r.d.Locker.Acquire(ctx, name, r.d.LockTTL)
	if err != nil {
		return nil, err
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go r.renew(ctx, lk, stop, done)
	return func() {
		close(stop)
		<-done
		if err := lk.Release(context.WithoutCancel(ctx)); err != nil {
			r.d.Log.Warn("channels: a conversation's lock was lost before its release", "channel", c.ID, "err", err)
		}
	}, nil
}

// renew extends a held lock every third of its time to live until stop
// is closed.
func (r *Runtime) renew(ctx context.Context, lk Lock, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(r.d.LockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			if err := lk.Extend(ctx, r.d.LockTTL); err != nil {
				r.d.Log.Warn("channels: could not renew a conversation's lock", "err", err)
			}
		}
	}
}

// localLocker locks keys within this process: the Locker of a runtime
// given none. Its locks do not expire; they are released by their
// holder.
type localLocker struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed when released
}

func newLocalLocker() *localLocker { return &localLocker{held: map[string]chan struct{}{}} }

// Acquire waits until key is free, or ctx ends.
func (l *localLocker) Acquire(ctx context.Context, key string, _ time.Duration) (Lock, error) {
	for {
		l.mu.Lock()
		freed, busy := l.held[key]
		if !busy {
			mine := make(chan struct{})
			l.held[key] = mine
			l.mu.Unlock()
			return &localLock{l: l, key: key, mine: mine}, nil
		}
		l.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

type localLock struct {
	l    *localLocker
	key  string
	mine chan struct{}
	once sync.Once
}

func (k *localLock) Release(context.Context) error {
	k.once.Do(func() {
		k.l.mu.Lock()
		defer k.l.mu.Unlock()
		if k.l.held[k.key] == k.mine {
			delete(k.l.held, k.key)
		}
		close(k.mine)
	})
	return nil
}

func (k *localLock) Extend(context.Context, time.Duration) error { return nil }
