package workflow

import (
	"container/list"
	"sync"
)

// compileCache keeps the most recently used compiled workflows. Concurrent
// requests for a key not cached yet compile it once.
type compileCache struct {
	mu       sync.Mutex
	size     int
	entries  map[string]*list.Element
	lru      *list.List // front: most recent; values are *cacheEntry
	inflight map[string]*compileCall
}

type cacheEntry struct {
	key string
	c   *Compiled
}

// compileCall is a compilation in progress that others wait for.
type compileCall struct {
	done chan struct{}
	c    *Compiled
	err  error
}

func newCompileCache(size int) *compileCache {
	return &compileCache{size: size, entries: map[string]*list.Element{}, lru: list.New(),
		inflight: map[string]*compileCall{}}
}

// get returns the compiled workflow of key, building it when missing.
// Failures are not cached.
func (c *compileCache) get(key string, build func() (*Compiled, error)) (*Compiled, error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*cacheEntry).c, nil
	}
	if call, ok := c.inflight[key]; ok {
		c.mu.Unlock()
		<-call.done
		return call.c, call.err
	}
	call := &compileCall{done: make(chan struct{})}
	c.inflight[key] = call
	c.mu.Unlock()

	call.c, call.err = build()
	c.mu.Lock()
	delete(c.inflight, key)
	if call.err == nil {
		c.entries[key] = c.lru.PushFront(&cacheEntry{key: key, c: call.c})
		for c.lru.Len() > c.size {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.entries, old.Value.(*cacheEntry).key)
		}
	}
	c.mu.Unlock()
	close(call.done)
	return call.c, call.err
}

// len returns how many compiled workflows are kept.
func (c *compileCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
