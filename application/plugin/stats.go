package plugin

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// maxErrorText bounds the last error kept per tool.
const maxErrorText = 500

// recorder aggregates tool calls in memory and adds them to the stored
// statistics at most every interval, in the background, so a call costs a
// map update; the administrators' views flush first.
type recorder struct {
	store    plugin.StatsStore
	every    time.Duration
	now      func() time.Time
	log      *slog.Logger
	mu       sync.Mutex
	pending  map[statKey]*plugin.ToolStats
	last     time.Time
	flushing bool
}

type statKey struct {
	plugin int64
	tool   string
}

func newRecorder(store plugin.StatsStore, every time.Duration, now func() time.Time, log *slog.Logger) *recorder {
	return &recorder{store: store, every: every, now: now, log: log, pending: map[statKey]*plugin.ToolStats{}, last: now()}
}

// record counts one call of a tool, its duration and its error.
func (r *recorder) record(pluginID int64, tool string, d time.Duration, err error) {
	if r.store == nil {
		return
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	k := statKey{pluginID, tool}
	st, ok := r.pending[k]
	if !ok {
		st = &plugin.ToolStats{PluginID: pluginID, Tool: tool}
		r.pending[k] = st
	}
	st.Merge(plugin.ToolStats{Calls: 1, TotalLatency: d, MaxLatency: d, LastCalledAt: now})
	if err != nil {
		st.Errors++
		st.LastError, st.LastErrorAt = truncate(err.Error(), maxErrorText), &now
	}
	if !r.flushing && now.Sub(r.last) >= r.every {
		r.flushing = true
		go r.flushInBackground()
	}
}

func (r *recorder) flushInBackground() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.flush(ctx); err != nil {
		r.log.Warn("writing plugin call statistics failed; kept for the next try", "err", err)
	}
}

// flush adds the pending counts to the store. On failure they are kept
// for the next flush.
func (r *recorder) flush(ctx context.Context) error {
	if r.store == nil {
		return nil
	}
	r.mu.Lock()
	batch := make([]plugin.ToolStats, 0, len(r.pending))
	for _, st := range r.pending {
		batch = append(batch, *st)
	}
	r.pending = map[statKey]*plugin.ToolStats{}
	r.last, r.flushing = r.now(), true
	r.mu.Unlock()
	err := r.store.AddStats(ctx, batch)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushing = false
	if err != nil {
		for _, st := range batch {
			k := statKey{st.PluginID, st.Tool}
			if cur, ok := r.pending[k]; ok {
				st.Merge(*cur)
			}
			kept := st
			r.pending[k] = &kept
		}
	}
	return err
}
