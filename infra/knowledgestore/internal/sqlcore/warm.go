package sqlcore

import (
	"context"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// DefaultWarmAfter is how long writes to a base must pause before this
// process loads it again in the background.
const DefaultWarmAfter = 2 * time.Second

// warmer loads written bases again once their writes pause, so that the
// first search after indexing finds the vectors and the text index in
// memory and the HNSW graph built or being built, instead of loading
// them itself. Only the writing process warms; another one loads on its
// first search.
type warmer struct {
	mu     sync.Mutex
	timers map[knowledgestore.BaseKey]*time.Timer
	closed bool
}

// warmLater (re)starts the pause of each base.
func (s *Store) warmLater(keys []knowledgestore.BaseKey) {
	if s.cfg.WarmAfter <= 0 {
		return
	}
	w := &s.warm
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.timers == nil {
		w.timers = map[knowledgestore.BaseKey]*time.Timer{}
	}
	for _, k := range keys {
		if t := w.timers[k]; t != nil {
			t.Reset(s.cfg.WarmAfter)
			continue
		}
		w.timers[k] = time.AfterFunc(s.cfg.WarmAfter, func() { s.load(k) })
	}
}

// load reads a base into the cache at its current revision.
func (s *Store) load(k knowledgestore.BaseKey) {
	s.warm.mu.Lock()
	delete(s.warm.timers, k)
	closed := s.warm.closed
	s.warm.mu.Unlock()
	if closed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	revs, err := s.revisions(ctx, k.WorkspaceID, []int64{k.KnowledgeID})
	if rev, ok := revs[k.KnowledgeID]; err == nil && ok {
		_, _ = s.vectors(ctx, k, rev) // a failure leaves it to the first search
	}
}

// stop cancels the pending loads.
func (w *warmer) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for k, t := range w.timers {
		t.Stop()
		delete(w.timers, k)
	}
}
