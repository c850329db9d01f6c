package memory

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// CacheOptions tunes a Cache. The zero value is usable.
type CacheOptions struct {
	// MaxEntries bounds the number of entries; 0 means unbounded. When a new
	// key would exceed it, expired entries are dropped first and then
	// arbitrary ones (random eviction, like Redis allkeys-random).
	MaxEntries int
	// SweepInterval is how often expired entries are removed in the
	// background; 0 means one minute. Reads never return expired entries
	// whatever the interval.
	SweepInterval time.Duration
}

// Cache is an in-process key-value cache with per-entry expiry. It is safe
// for concurrent use. Values are copied on the way in and out, so callers may
// reuse their slices.
type Cache struct {
	mu      sync.RWMutex
	entries map[string]cacheEntry
	max     int
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

type cacheEntry struct {
	val     []byte
	expires time.Time // zero: never
}

func (e cacheEntry) live(now time.Time) bool {
	return e.expires.IsZero() || now.Before(e.expires)
}

// NewCache returns an empty Cache and starts its expiry sweeper; call Close
// to stop it.
func NewCache(opts CacheOptions) *Cache {
	if opts.SweepInterval <= 0 {
		opts.SweepInterval = time.Minute
	}
	c := &Cache{
		entries: make(map[string]cacheEntry),
		max:     opts.MaxEntries,
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go c.sweepLoop(opts.SweepInterval)
	return c
}

// Close stops the background sweeper. The cache stays usable; expired
// entries are then only dropped lazily. Close always returns nil.
func (c *Cache) Close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.done
	return nil
}

// Get returns the value stored under key and true, or false if there is none
// or it has expired. It returns an error only for an empty key (errs.ErrInvalid).
func (c *Cache) Get(_ context.Context, key string) ([]byte, bool, error) {
	if err := checkName("key", key); err != nil {
		return nil, false, fmt.Errorf("cache get: %w", err)
	}
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if !ok || !e.live(time.Now()) {
		return nil, false, nil
	}
	return clone(e.val), true, nil
}

// Set stores val under key, replacing any value and its expiry. A ttl of 0
// means no expiry; a negative ttl or an empty key returns errs.ErrInvalid.
func (c *Cache) Set(_ context.Context, key string, val []byte, ttl time.Duration) error {
	if err := c.check(key, ttl); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(key, val, ttl)
	return nil
}

// SetNX stores val under key only if no live value is there, and reports
// whether it did. Arguments are validated as for Set.
func (c *Cache) SetNX(_ context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := c.check(key, ttl); err != nil {
		return false, fmt.Errorf("cache setnx: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok && e.live(time.Now()) {
		return false, nil
	}
	c.put(key, val, ttl)
	return true, nil
}

// Delete removes keys; missing keys are not an error. It always returns nil.
func (c *Cache) Delete(_ context.Context, keys ...string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		delete(c.entries, k)
	}
	return nil
}

func (c *Cache) check(key string, ttl time.Duration) error {
	if err := checkName("key", key); err != nil {
		return err
	}
	return checkTTL("ttl", ttl, true)
}

// put stores an entry; c.mu must be held for writing.
func (c *Cache) put(key string, val []byte, ttl time.Duration) {
	e := cacheEntry{val: clone(val)}
	if ttl > 0 {
		e.expires = time.Now().Add(ttl)
	}
	if _, exists := c.entries[key]; !exists && c.max > 0 && len(c.entries) >= c.max {
		c.makeRoom()
	}
	c.entries[key] = e
}

// makeRoom drops expired entries and, if that is not enough, arbitrary ones
// until one more fits; c.mu must be held for writing.
func (c *Cache) makeRoom() {
	c.sweep(time.Now())
	for k := range c.entries {
		if len(c.entries) < c.max {
			return
		}
		delete(c.entries, k)
	}
}

// sweep drops expired entries; c.mu must be held for writing.
func (c *Cache) sweep(now time.Time) {
	for k, e := range c.entries {
		if !e.live(now) {
			delete(c.entries, k)
		}
	}
}

func (c *Cache) sweepLoop(every time.Duration) {
	defer close(c.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			c.mu.Lock()
			c.sweep(now)
			c.mu.Unlock()
		}
	}
}
