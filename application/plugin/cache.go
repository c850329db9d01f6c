package plugin

import (
	"sync"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// maxCachedSpecs bounds the published specs kept in memory.
const maxCachedSpecs = 1024

// specCache keeps the specs of published versions, which never change.
type specCache struct {
	mu    sync.RWMutex
	specs map[[2]int64]*plugin.Spec
}

func newSpecCache() *specCache { return &specCache{specs: map[[2]int64]*plugin.Spec{}} }

func (c *specCache) get(id, version int64) (*plugin.Spec, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.specs[[2]int64{id, version}]
	return s, ok
}

func (c *specCache) put(id, version int64, s *plugin.Spec) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.specs) >= maxCachedSpecs {
		clear(c.specs) // rare; the next calls read the store again
	}
	c.specs[[2]int64{id, version}] = s
}
