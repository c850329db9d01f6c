package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/pergola-ai/pergola/application/queue"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Consumer delivers the messages of a topic to a handler until ctx ends;
// memory.Queue and redis.Queue implement it.
type Consumer = queue.Consumer

// Work indexes queued documents from q, concurrency at a time, until ctx
// ends. Beside it, every third of the lease, it queues again the
// documents whose worker stopped renewing its lease (a process killed
// mid-indexing, or a queued message lost with an in-memory queue) and
// queues the web documents whose update rule says they are due. Every
// process may run a worker: the queue gives each document to one, and
// leases keep it with one worker at a time. group is the consumer group
// shared by the processes of one deployment.
func (s *Service) Work(ctx context.Context, q Consumer, group string, concurrency int) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.maintainEvery(ctx, s.d.Lease/3)
	}()
	if s.d.SingleProcess {
		s.recoverLeft(ctx)
	}
	opts := queue.ConsumeOptions{Concurrency: concurrency, VisibilityTimeout: s.d.Lease}
	for ctx.Err() == nil {
		err := q.Consume(ctx, IndexTopic, group, s.d.Owner, opts, func(ctx context.Context, msg queue.Message) error {
			return s.HandleIndex(ctx, msg.Payload)
		})
		if err != nil && ctx.Err() == nil {
			s.d.Log.Warn("knowledge worker: the queue failed; retrying", "err", err)
			queue.Sleep(ctx, time.Second)
		}
	}
	<-done
}

// maintainEvery runs Reap and RefreshDue every interval until ctx ends.
func (s *Service) maintainEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(max(interval, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.Reap(ctx); err != nil && ctx.Err() == nil {
			s.d.Log.Warn("knowledge worker: reaping expired leases failed", "err", err)
		}
		if err := s.RefreshDue(ctx); err != nil && ctx.Err() == nil {
			s.d.Log.Warn("knowledge worker: refreshing web documents failed", "err", err)
		}
	}
}

// HandleIndex is the queue handler of documents: it takes a turn of the
// workers for the document's workspace (or queues it again at the end,
// see takeShare), claims the document (one that is gone, ready, failed
// or held by a live lease elsewhere is acknowledged and left alone) and
// indexes it. Errors of the attempt
// itself end the document as failed; only errors storing that outcome
// return, so the queue delivers the message again.
func (s *Service) HandleIndex(ctx context.Context, payload []byte) error {
	var m indexMessage
	if err := json.Unmarshal(payload, &m); err != nil || m.DocumentID == 0 {
		s.d.Log.Warn("knowledge worker: dropped a malformed message", "payload", string(payload))
		return nil
	}
	leave, ok, err := s.takeShare(ctx, m.WorkspaceID, payload)
	if !ok {
		return err
	}
	defer leave()
	now := s.d.Now()
	c, err := s.d.Documents.Claim(ctx, m.DocumentID, s.d.Owner, now, now.Add(s.d.Lease))
	if errors.Is(err, errs.ErrConflict) || errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.Attempts > s.d.MaxAttempts {
		return s.finish(ctx, &c.Document, knowledge.Outcome{Status: knowledge.StatusFailed,
			Reason: "indexing was started several times and its process stopped each time; add the document again or refresh it"})
	}
	return s.index(ctx, &c.Document)
}

// Reap queues again the documents whose lease expired: their worker's
// process stopped (or a queued message was lost). The next attempt
// starts over, removing what the stopped one left in the index. It is
// safe on every process at once.
func (s *Service) Reap(ctx context.Context) error {
	now := s.d.Now()
	return s.reapBefore(ctx, now, now, 100)
}

// recoverLeft queues again, at once, the documents a previous run of a
// single-process deployment left processing: their messages were lost
// with its in-memory queue and no live worker holds their leases, which
// all end before now plus a day (a lease lasts Lease, renewed while a
// worker indexes). Documents queued by this run meanwhile may get a
// second message; Claim gives each to one worker only.
func (s *Service) recoverLeft(ctx context.Context) {
	now := s.d.Now()
	if err := s.reapBefore(ctx, now.Add(s.d.Lease+24*time.Hour), now, 1000); err != nil && ctx.Err() == nil {
		s.d.Log.Warn("knowledge worker: queueing the documents left processing failed; they wait for their leases to end", "err", err)
	}
}

// reapBefore queues again up to limit processing documents whose lease
// ends before before, leasing them to the queue from now.
func (s *Service) reapBefore(ctx context.Context, before, now time.Time, limit int) error {
	expired, err := s.d.Documents.Expired(ctx, before, limit)
	if err != nil {
		return err
	}
	for _, c := range expired {
		if err := s.d.Documents.Release(ctx, c.ID, c.Generation, before, now.Add(s.d.Lease)); err != nil {
			continue // another process got it first, or it moved on
		}
		if c.Attempts > 0 {
			s.d.Log.Info("knowledge worker: indexing again a document whose worker stopped", "document", c.ID, "attempts", c.Attempts)
		}
		s.enqueue(ctx, &c.Document)
	}
	return nil
}

// RefreshDue queues the web documents whose update rule is due.
func (s *Service) RefreshDue(ctx context.Context) error {
	docs, err := s.d.Documents.DueRefreshes(ctx, s.d.Now(), 100)
	if err != nil {
		return err
	}
	for i := range docs {
		if _, err := s.requeue(ctx, &docs[i]); err != nil && !errors.Is(err, errs.ErrConflict) {
			s.d.Log.Warn("knowledge worker: refresh a web document", "document", docs[i].ID, "err", err)
		}
	}
	return nil
}
