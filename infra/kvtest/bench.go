package kvtest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// BenchmarkCacheGet measures Get of a present 1 KiB value; newCache returns
// an empty cache.
func BenchmarkCacheGet(b *testing.B, newCache func(b *testing.B) Cache) {
	c := newCache(b)
	ctx := context.Background()
	if err := c.Set(ctx, "bench", make([]byte, 1024), 0); err != nil {
		b.Fatalf("set: %v", err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := c.Get(ctx, "bench"); err != nil || !ok {
			b.Fatalf("get: %v, %v", ok, err)
		}
	}
}

// BenchmarkQueuePublishConsume measures publishing b.N small messages and
// having one consumer with four handlers acknowledge all of them; newQueue
// returns an empty queue. A publish the queue refuses because its backlog
// is full waits for the consumer and tries again, as callers should; the
// benchmark fails unless every message is handled.
func BenchmarkQueuePublishConsume(b *testing.B, newQueue func(b *testing.B) Queue) {
	q := newQueue(b)
	ctx, cancel := context.WithCancel(context.Background())
	var handled atomic.Int64
	done := make(chan error, 1)
	go func() {
		done <- q.Consume(ctx, "bench", "g", "c", ConsumeOptions{Concurrency: 4},
			func(context.Context, Message) error {
				handled.Add(1)
				return nil
			})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("consume: %v", err)
		}
	}()
	payload := make([]byte, 128)
	b.ResetTimer()
	for range b.N {
		publishPatiently(b, ctx, q, payload)
	}
	deadline := time.Now().Add(time.Minute)
	for handled.Load() < int64(b.N) {
		if time.Now().After(deadline) {
			b.Fatalf("handled %d of %d messages in a minute", handled.Load(), b.N)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// publishPatiently publishes payload, waiting while the queue is full.
func publishPatiently(b *testing.B, ctx context.Context, q Queue, payload []byte) {
	for {
		_, err := q.Publish(ctx, "bench", payload)
		if !errors.Is(err, errs.ErrRateLimited) {
			if err != nil {
				b.Fatalf("publish: %v", err)
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
}
