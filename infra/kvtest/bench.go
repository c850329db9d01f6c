package kvtest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
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
// returns an empty queue.
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
		if _, err := q.Publish(ctx, "bench", payload); err != nil {
			b.Fatalf("publish: %v", err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for handled.Load() < int64(b.N) {
		if time.Now().After(deadline) {
			b.Fatalf("handled %d of %d messages in a minute", handled.Load(), b.N)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
