package workflow

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/application/queue"
)

// Consumer delivers the messages of a topic to a handler until ctx ends;
// memory.Queue and redis.Queue implement it.
type Consumer = queue.Consumer

// Work runs async runs from q, concurrency at a time, and reaps the runs
// whose process died, until ctx ends; it then waits for the runs it holds
// to stop (they are left for another process). Every process may run a
// worker: the queue gives each run to one, and leases keep a run with one
// process at a time.
//
// group is the consumer group: processes of one deployment share one;
// two deployments on one Redis must not (a run of the other's database is
// acknowledged and dropped), so the composition root derives it from the
// database.
func (s *Service) Work(ctx context.Context, q Consumer, group string, concurrency int) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.reapEvery(ctx, s.d.Lease/3)
		s.forget(ctx)
	}()
	opts := queue.ConsumeOptions{Concurrency: concurrency, VisibilityTimeout: s.d.Lease}
	for ctx.Err() == nil {
		err := q.Consume(ctx, RunTopic, group, s.d.Owner, opts, func(ctx context.Context, msg queue.Message) error {
			return s.HandleRun(ctx, msg.Payload)
		})
		if err != nil && ctx.Err() == nil {
			s.d.Log.Warn("workflow worker: the queue failed; retrying", "err", err)
			queue.Sleep(ctx, time.Second)
		}
	}
	<-done
}

// reapEvery beats and calls Reap every interval until ctx ends.
func (s *Service) reapEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.Beat(ctx); err != nil && ctx.Err() == nil {
			s.d.Log.Warn("workflow worker: heartbeat not written; retrying", "err", err)
			continue // judge others only while this process's own view is current
		}
		if err := s.Reap(ctx); err != nil && ctx.Err() == nil {
			s.d.Log.Warn("workflow worker: reaping expired runs failed", "err", err)
		}
	}
}

// Beat records that this process is alive, which keeps the direct runs
// it has stored running (see Prepared.direct). Work beats every third of
// the lease; the composition root beats once before serving, so that no
// run is stored before this process is known to be alive.
func (s *Service) Beat(ctx context.Context) error {
	if s.d.Writer == nil {
		return nil
	}
	return s.d.Writer.Beat(ctx, s.d.Owner)
}

// reapOrphans fails the direct runs of processes that stopped beating
// for a lease.
func (s *Service) reapOrphans(ctx context.Context) error {
	if s.d.Writer == nil {
		return nil
	}
	n, err := s.d.Writer.FailOrphanedRuns(ctx, s.d.Owner, time.Now().Add(-s.d.Lease), OrphanedRunMessage)
	if n > 0 {
		s.d.Log.Warn("workflow runs of a stopped process marked failed", "runs", n)
	}
	return err
}

// forget removes this process's heartbeat when its worker stops.
func (s *Service) forget(ctx context.Context) {
	if s.d.Writer == nil {
		return
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := s.d.Writer.Forget(fctx, s.d.Owner); err != nil {
		s.d.Log.Warn("workflow worker: heartbeat not removed", "err", err)
	}
}
