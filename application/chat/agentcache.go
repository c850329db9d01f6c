package chat

import (
	"container/list"
	"sync"
)

// agentCache keeps the most recently used compiled agents.
type agentCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used; values are keys
	items map[string]*list.Element
	vals  map[string]*compiled
}

func newAgentCache(max int) *agentCache {
	return &agentCache{max: max, order: list.New(), items: map[string]*list.Element{}, vals: map[string]*compiled{}}
}

func (c *agentCache) get(key string) (*compiled, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return c.vals[key], true
}

func (c *agentCache) put(key string, v *compiled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		c.vals[key] = v
		return
	}
	c.items[key] = c.order.PushFront(key)
	c.vals[key] = v
	for c.order.Len() > c.max {
		oldest := c.order.Back()
		k := oldest.Value.(string)
		c.order.Remove(oldest)
		delete(c.items, k)
		delete(c.vals, k)
	}
}

func (c *agentCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
