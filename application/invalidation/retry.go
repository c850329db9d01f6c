package invalidation

import (
	"context"
	"slices"
	"sync"
	"time"
)

// maxPending bounds the tags waiting to be published again; past it they
// are replaced by All, which flushes the other processes' caches whole.
const maxPending = 256

// retrier publishes again, in the background, the invalidations whose
// publication failed: the other processes then drop the entries late
// rather than only at the end of their TTL.
type retrier struct {
	hub     *Hub
	mu      sync.Mutex
	pending []string
	wake    chan struct{}
}

func (r *retrier) add(tags []string) {
	r.mu.Lock()
	switch {
	case slices.Contains(r.pending, All):
	case len(r.pending)+len(tags) > maxPending:
		r.pending = []string{All}
	default:
		r.pending = append(r.pending, tags...)
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *retrier) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	tags := r.pending
	r.pending = nil
	return tags
}

// loop publishes what is pending until ctx is done.
func (r *retrier) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
		for tags := r.take(); len(tags) > 0; tags = r.take() {
			if err := r.hub.bus.Publish(ctx, tags); err != nil {
				r.add(tags)
				if !sleep(ctx, r.hub.opts.Retry) {
					return
				}
			}
		}
	}
}

// sleep waits d or until ctx is done; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
