package knowledgestore

import "sync"

// BaseKey names one knowledge base of one workspace.
type BaseKey struct {
	WorkspaceID int64
	KnowledgeID int64
}

// DefaultCacheBytes bounds the vectors a cache keeps: 512 MiB holds about
// 170,000 vectors of 768 dimensions.
const DefaultCacheBytes = 512 << 20

// VectorCache holds the vectors of recently searched knowledge bases in
// memory, each tagged with the revision of the base it was loaded at.
// The engines keep a revision per base in the database, bumped in the
// transaction of every write, so a cached base is reused only while its
// revision is unchanged, across processes too. Past its byte budget it
// forgets the least recently searched bases (one base larger than the
// budget is still kept alone).
type VectorCache struct {
	mu    sync.Mutex
	bases map[BaseKey]*BaseVectors
	ann   ANNConfig
	max   int64
	tick  uint64 // a clock for least-recently-used
	shut  bool   // closed: nothing is cached any more
}

// ANNConfig says when bases are searched through an HNSW graph.
type ANNConfig struct {
	// Threshold is the base size from which a search uses the graph (0:
	// never).
	Threshold int
	// Sync builds the graph in the first search that needs it instead of
	// in the background (searches stay exact meanwhile); for tests.
	Sync bool
}

// NewVectorCache returns an empty cache of at most maxBytes of vectors
// (0: DefaultCacheBytes).
func NewVectorCache(ann ANNConfig, maxBytes int64) *VectorCache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &VectorCache{bases: map[BaseKey]*BaseVectors{}, ann: ann, max: maxBytes}
}

// Get returns the cached vectors of a base if they were loaded at
// revision or a later one, else nil.
func (c *VectorCache) Get(k BaseKey, revision int64) *BaseVectors {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.bases[k]
	if b == nil || b.Revision < revision {
		return nil
	}
	c.tick++
	b.used = c.tick
	return b
}

// Put caches vectors loaded for a base, replacing older ones, and starts
// building the HNSW graph of a large base at once.
func (c *VectorCache) Put(k BaseKey, b *BaseVectors) {
	b.annMin, b.annSync = c.ann.Threshold, c.ann.Sync
	if c.put(k, b) {
		b.graph()
	}
}

// put caches b unless a newer revision is cached; it reports whether b
// was cached.
func (c *VectorCache) put(k BaseKey, b *BaseVectors) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.bases[k]
	if c.shut || old != nil && old.Revision > b.Revision {
		b.stale.Store(true)
		return false
	}
	if old != nil && old != b {
		old.stale.Store(true)
	}
	c.tick++
	b.used = c.tick
	c.bases[k] = b
	c.evict()
	return true
}

// evict drops the least recently used bases while over budget.
func (c *VectorCache) evict() {
	for c.bytes() > c.max && len(c.bases) > 1 {
		var oldest BaseKey
		var at uint64
		for k, b := range c.bases {
			if at == 0 || b.used < at {
				oldest, at = k, b.used
			}
		}
		c.bases[oldest].stale.Store(true)
		delete(c.bases, oldest)
	}
}

func (c *VectorCache) bytes() int64 {
	var n int64
	for _, b := range c.bases {
		n += int64(len(b.data))*4 + int64(len(b.IDs))*16 + b.text.bytes()
	}
	return n
}

// Advance tags the base's vectors cached at revision from with revision
// to, for a revision bump that changed none of its chunks.
func (c *VectorCache) Advance(k BaseKey, from, to int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.bases[k]; b != nil && b.Revision == from {
		b.Revision = to
	}
}

// Drop forgets a base, e.g. after a write in this process.
func (c *VectorCache) Drop(k BaseKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.bases[k]; old != nil {
		old.stale.Store(true)
	}
	delete(c.bases, k)
}

// Close forgets every base, stops graph builds and caches nothing more.
func (c *VectorCache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shut = true
	for k, b := range c.bases {
		b.stale.Store(true)
		delete(c.bases, k)
	}
}

// Len returns how many bases are cached.
func (c *VectorCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bases)
}
