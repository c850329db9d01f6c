package kvtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// deepBacklog is more messages than the queues used to keep (they trimmed
// the oldest past 100,000, acknowledged or not).
const deepBacklog = 120_000

// drainPatience bounds the wait for a deep backlog to be handled; a pass
// takes a few seconds.
const drainPatience = 2 * time.Minute

// TestQueueBacklog runs the contract of a bounded backlog: nothing accepted
// is ever dropped, and a full topic refuses with *errs.QueueFullError until
// its consumers catch up. newQueue returns an empty queue whose backlog is
// bounded by maxBacklog (0: the implementation's default, which must hold
// more than deepBacklog messages).
func TestQueueBacklog(t *testing.T, newQueue func(t *testing.T, maxBacklog int) Queue) {
	cases := []struct {
		name       string
		maxBacklog int
		run        func(t *testing.T, q Queue)
	}{
		{"every message of a backlog past 100,000 handled once", 0, queueDeepBacklog},
		{"full queue refuses and accepts once drained", 10, queueFullRefuses},
		{"a lagging group keeps the queue full", 5, queueLaggingGroup},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newQueue(t, tc.maxBacklog))
		})
	}
}

// queueDeepBacklog publishes deepBacklog messages before any group reads
// them, then drains them with several consumers.
func queueDeepBacklog(t *testing.T, q Queue) {
	start := time.Now()
	sent := publishMany(t, q, "deep", deepBacklog, 16)
	t.Logf("published in %s", time.Since(start))
	r := newRecorder()
	consume(t, q, "deep", "g", "c1", ConsumeOptions{Concurrency: 8}, r.handle)
	consume(t, q, "deep", "g", "c2", ConsumeOptions{Concurrency: 8}, r.handle)
	deadline := time.Now().Add(drainPatience)
	for r.distinct() < len(sent) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := r.distinct(); n < len(sent) {
		t.Fatalf("handled %d of %d messages within %s", n, len(sent), drainPatience)
	}
	wantEach(t, r, sent)
}

// publishMany publishes n messages from workers goroutines at once.
func publishMany(t *testing.T, q Queue, topic string, n, workers int) map[string][]byte {
	t.Helper()
	var (
		mu    sync.Mutex
		sent  = make(map[string][]byte, n)
		wg    sync.WaitGroup
		first error
	)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				payload := fmt.Appendf(nil, "%s-%d", topic, i)
				id, err := q.Publish(background(t), topic, payload)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				sent[id] = payload
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	noErr(t, "publish", first)
	if len(sent) != n {
		t.Fatalf("publish returned %d distinct ids for %d messages", len(sent), n)
	}
	return sent
}

// wantFull checks that err is the queue's refusal.
func wantFull(t *testing.T, what string, err error) {
	t.Helper()
	var full *errs.QueueFullError
	if !errors.As(err, &full) || !errors.Is(err, errs.ErrRateLimited) {
		t.Fatalf("%s: got error %v, want a *errs.QueueFullError matching errs.ErrRateLimited", what, err)
	}
}

// publishWhenAccepted publishes payload, retrying while the queue is full,
// as a well-behaved client would.
func publishWhenAccepted(t *testing.T, q Queue, topic string, payload []byte) string {
	t.Helper()
	var (
		id  string
		err error
	)
	eventually(t, "the queue to accept a message again", func() bool {
		id, err = q.Publish(background(t), topic, payload)
		return !errors.Is(err, errs.ErrRateLimited)
	})
	noErr(t, "publish after the queue drained", err)
	return id
}

func queueFullRefuses(t *testing.T, q Queue) {
	sent := publishN(t, q, "jobs", 10)
	_, err := q.Publish(background(t), "jobs", []byte("one too many"))
	wantFull(t, "publish to a full queue", err)
	r := newRecorder()
	consume(t, q, "jobs", "g", "c", ConsumeOptions{}, r.handle)
	wantEach(t, r, sent)
	for i := range 15 { // more than the bound: acknowledged messages free room
		payload := fmt.Appendf(nil, "after-%d", i)
		sent[publishWhenAccepted(t, q, "jobs", payload)] = payload
	}
	wantEach(t, r, sent) // and the refused message was never queued
}

// queueLaggingGroup checks that a message one group has handled still
// counts while another group has not: each group gets every message.
func queueLaggingGroup(t *testing.T, q Queue) {
	fast := newRecorder()
	consume(t, q, "events", "fast", "c", ConsumeOptions{}, fast.handle)
	release, started := make(chan struct{}), make(chan Message, 10)
	slow := newRecorder()
	consume(t, q, "events", "slow", "c", ConsumeOptions{}, func(ctx context.Context, msg Message) error {
		started <- msg
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return slow.handle(ctx, msg)
	})
	sent := publishN(t, q, "events", 5)
	wantEach(t, fast, sent)
	receive(t, "the slow group to take a message", started)
	_, err := q.Publish(background(t), "events", []byte("one too many"))
	wantFull(t, "publish while a group lags", err)
	close(release)
	wantEach(t, slow, sent)
	payload := []byte("after")
	sent[publishWhenAccepted(t, q, "events", payload)] = payload
	wantEach(t, fast, sent)
	wantEach(t, slow, sent)
}
