package trace

import (
	"context"
	"log/slog"
	"time"
)

// pruneBatch is how many records one delete removes, so that no delete
// holds the table for long.
const pruneBatch = 1000

// Expirer deletes old traces; *sqlstore.TraceStore implements it.
type Expirer interface {
	// DeleteTracesBefore deletes up to limit of the oldest records stored
	// before t and returns how many it deleted.
	DeleteTracesBefore(ctx context.Context, t time.Time, limit int) (int, error)
}

// Pruner deletes the traces older than the retention, every Every.
type Pruner struct {
	Store     Expirer
	Retention time.Duration // 0: traces are kept
	Every     time.Duration
	Log       *slog.Logger
	Now       func() time.Time
}

// Run prunes at once and then every p.Every until ctx ends.
func (p Pruner) Run(ctx context.Context) {
	if p.Retention <= 0 {
		return
	}
	tick := time.NewTicker(p.Every)
	defer tick.Stop()
	for {
		if n, err := p.Prune(ctx); err != nil && ctx.Err() == nil {
			p.Log.Warn("pruning old run traces", "err", err, "deleted", n)
		} else if n > 0 {
			p.Log.Info("pruned old run traces", "deleted", n, "retention", p.Retention.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Prune deletes every record older than the retention, batch by batch,
// and returns how many it deleted.
func (p Pruner) Prune(ctx context.Context) (int, error) {
	cutoff := p.Now().Add(-p.Retention)
	total := 0
	for ctx.Err() == nil {
		n, err := p.Store.DeleteTracesBefore(ctx, cutoff, pruneBatch)
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
	return total, ctx.Err()
}
