package invalidation

import (
	"container/list"
	"sync"
	"time"
)

// Cache is a bounded, least-recently-used in-process cache whose entries
// are tagged with what they depend on and dropped by their Hub. Values are
// shared by every caller: they must be treated as read-only. It is safe for
// concurrent use.
//
// Only successful loads are kept, never a failure such as "unknown token":
// a caller cannot fill memory with misses, and something created is found
// at once.
type Cache[V any] struct {
	hub   *Hub
	max   int
	mu    sync.Mutex
	items map[string]*list.Element // values are *entry[V]
	lru   *list.List               // front: most recently used
	tags  map[string]map[*list.Element]struct{}
	// epoch grows with every drop: a load that started before a drop
	// may have read what the drop is about, so its result is not kept.
	epoch uint64
}

type entry[V any] struct {
	key     string
	val     V
	tags    []string
	expires time.Time
}

// NewCache returns a cache of at most max entries kept fresh by hub. A nil
// hub, a hub whose TTL is 0, or max < 1 make a cache that keeps nothing.
func NewCache[V any](hub *Hub, max int) *Cache[V] {
	c := &Cache[V]{hub: hub, max: max, items: map[string]*list.Element{}, lru: list.New(),
		tags: map[string]map[*list.Element]struct{}{}}
	if c.on() {
		hub.register(c)
	}
	return c
}

func (c *Cache[V]) on() bool { return c.hub.enabled() && c.max > 0 }

// Get returns the value of key: the cached one while the hub is fresh, or
// what load returns, which is kept with the tags load names unless load
// failed or a drop happened meanwhile.
func (c *Cache[V]) Get(key string, load func() (V, []string, error)) (V, error) {
	if !c.on() || !c.hub.fresh() {
		v, _, err := load()
		return v, err
	}
	if v, ok := c.lookup(key); ok {
		return v, nil
	}
	epoch := c.currentEpoch()
	v, tags, err := load()
	if err == nil {
		c.put(epoch, key, v, tags)
	}
	return v, err
}

// Len returns how many entries are kept.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *Cache[V]) lookup(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	e := el.Value.(*entry[V])
	if !time.Now().Before(e.expires) {
		c.remove(el)
		var zero V
		return zero, false
	}
	c.lru.MoveToFront(el)
	return e.val, true
}

func (c *Cache[V]) currentEpoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// put keeps a loaded value unless a drop happened since epoch.
func (c *Cache[V]) put(epoch uint64, key string, v V, tags []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch {
		return
	}
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
	el := c.lru.PushFront(&entry[V]{key: key, val: v, tags: tags, expires: time.Now().Add(c.hub.opts.TTL)})
	c.items[key] = el
	for _, t := range tags {
		if c.tags[t] == nil {
			c.tags[t] = map[*list.Element]struct{}{}
		}
		c.tags[t][el] = struct{}{}
	}
	for c.lru.Len() > c.max {
		c.remove(c.lru.Back())
	}
}

// remove forgets one entry; c.mu must be held.
func (c *Cache[V]) remove(el *list.Element) {
	e := c.lru.Remove(el).(*entry[V])
	delete(c.items, e.key)
	for _, t := range e.tags {
		delete(c.tags[t], el)
		if len(c.tags[t]) == 0 {
			delete(c.tags, t)
		}
	}
}

// drop forgets the entries tagged with any of tags (every entry for All).
func (c *Cache[V]) drop(tags []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for _, t := range tags {
		if t == All {
			c.items, c.tags = map[string]*list.Element{}, map[string]map[*list.Element]struct{}{}
			c.lru.Init()
			return
		}
		for el := range c.tags[t] {
			c.remove(el)
		}
	}
}
