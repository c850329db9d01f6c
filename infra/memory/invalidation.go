package memory

import (
	"context"
	"sync"
	"time"
)

// InvalidationListener is what an InvalidationBus delivers to; it aliases
// an unnamed interface type, declared identically in package redis and by
// the consumer (application/invalidation), so they are all one type.
type InvalidationListener = interface {
	Drop(tags []string)
	Resubscribed()
	Heard(asOf time.Time)
}

// InvalidationBus carries cache invalidations between the listeners of one
// process, synchronously: when Publish returns every listener has dropped
// the tags, so nothing can be missed. It is safe for concurrent use.
type InvalidationBus struct {
	mu        sync.RWMutex
	listeners map[*InvalidationListener]struct{}
}

// NewInvalidationBus returns a bus with no listeners.
func NewInvalidationBus() *InvalidationBus {
	return &InvalidationBus{listeners: map[*InvalidationListener]struct{}{}}
}

// Publish hands tags to every listener and returns once they dropped them.
// It always returns nil.
func (b *InvalidationBus) Publish(_ context.Context, tags []string) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for l := range b.listeners {
		(*l).Drop(tags)
	}
	return nil
}

// Listen delivers to l until ctx is done. l is told it is subscribed and
// heard at once: an in-process bus cannot lose a message.
func (b *InvalidationBus) Listen(ctx context.Context, l InvalidationListener) {
	key := &l
	b.mu.Lock()
	b.listeners[key] = struct{}{}
	b.mu.Unlock()
	l.Resubscribed()
	l.Heard(time.Now())
	<-ctx.Done()
	b.mu.Lock()
	delete(b.listeners, key)
	b.mu.Unlock()
}

// Listeners returns how many listeners are listening.
func (b *InvalidationBus) Listeners() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.listeners)
}
