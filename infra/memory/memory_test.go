package memory_test

import (
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/kvtest"
	"github.com/pergola-ai/pergola/infra/memory"
)

var (
	_ kvtest.Cache       = (*memory.Cache)(nil)
	_ kvtest.Locker      = (*memory.Locker)(nil)
	_ kvtest.Queue       = (*memory.Queue)(nil)
	_ kvtest.PubSub      = (*memory.PubSub)(nil)
	_ kvtest.RateLimiter = (*memory.RateLimiter)(nil)
)

func newCache(tb testing.TB) *memory.Cache {
	c := memory.NewCache(memory.CacheOptions{SweepInterval: 50 * time.Millisecond})
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

func TestCache(t *testing.T) {
	kvtest.TestCache(t, func(t *testing.T) kvtest.Cache { return newCache(t) })
}

func TestLocker(t *testing.T) {
	kvtest.TestLocker(t, func(*testing.T) kvtest.Locker { return memory.NewLocker() })
}

func TestQueue(t *testing.T) {
	kvtest.TestQueue(t, func(*testing.T) kvtest.Queue { return memory.NewQueue(memory.QueueOptions{}) })
}

func TestQueueBacklog(t *testing.T) {
	kvtest.TestQueueBacklog(t, func(_ *testing.T, maxBacklog int) kvtest.Queue {
		return memory.NewQueue(memory.QueueOptions{MaxBacklog: maxBacklog})
	})
}

func TestPubSub(t *testing.T) {
	kvtest.TestPubSub(t, func(*testing.T) kvtest.PubSub { return memory.NewPubSub() })
}

func TestRateLimiter(t *testing.T) {
	kvtest.TestRateLimiter(t, func(*testing.T) kvtest.RateLimiter { return memory.NewRateLimiter() })
}

func BenchmarkCacheGet(b *testing.B) {
	kvtest.BenchmarkCacheGet(b, func(b *testing.B) kvtest.Cache { return newCache(b) })
}

func BenchmarkQueuePublishConsume(b *testing.B) {
	kvtest.BenchmarkQueuePublishConsume(b, func(*testing.B) kvtest.Queue {
		return memory.NewQueue(memory.QueueOptions{})
	})
}
