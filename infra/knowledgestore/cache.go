package knowledgestore

import "sync"

// BaseKey names one knowledge base of one workspace.
type BaseKey struct {
	WorkspaceID int64
	KnowledgeID int64
}

// VectorCache holds the vectors of recently searched knowledge bases in
// memory, each tagged with the revision of the base it was loaded at.
// The engines keep a revision per base in the database, bumped in the
// transaction of every write, so a cached base is reused only while its
// revision is unchanged, across processes too.
type VectorCache struct {
	mu    sync.Mutex
	bases map[BaseKey]*BaseVectors
	ann   ANNConfig
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

// NewVectorCache returns an empty cache.
func NewVectorCache(ann ANNConfig) *VectorCache {
	return &VectorCache{bases: map[BaseKey]*BaseVectors{}, ann: ann}
}

// Get returns the cached vectors of a base if they were loaded at
// revision, else nil.
func (c *VectorCache) Get(k BaseKey, revision int64) *BaseVectors {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.bases[k]
	if b == nil || b.Revision != revision {
		return nil
	}
	return b
}

// Put caches vectors loaded for a base, replacing older ones.
func (c *VectorCache) Put(k BaseKey, b *BaseVectors) {
	b.annMin, b.annSync = c.ann.Threshold, c.ann.Sync
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.bases[k]
	if old != nil && old.Revision > b.Revision {
		return
	}
	if old != nil && old != b {
		old.stale.Store(true)
	}
	c.bases[k] = b
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

// Close forgets every base and stops graph builds.
func (c *VectorCache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
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
