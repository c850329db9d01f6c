package redis_test

import (
	"testing"

	"github.com/pergola-ai/pergola/infra/kvtest"
	"github.com/pergola-ai/pergola/infra/redis"
	"github.com/pergola-ai/pergola/infra/testenv"
)

var (
	_ kvtest.Cache       = (*redis.Cache)(nil)
	_ kvtest.Locker      = (*redis.Locker)(nil)
	_ kvtest.Queue       = (*redis.Queue)(nil)
	_ kvtest.PubSub      = (*redis.PubSub)(nil)
	_ kvtest.RateLimiter = (*redis.RateLimiter)(nil)
)

func TestCache(t *testing.T) {
	kvtest.TestCache(t, func(t *testing.T) kvtest.Cache { return redis.NewCache(testenv.Redis(t)) })
}

func TestLocker(t *testing.T) {
	kvtest.TestLocker(t, func(t *testing.T) kvtest.Locker { return redis.NewLocker(testenv.Redis(t)) })
}

func TestQueue(t *testing.T) {
	kvtest.TestQueue(t, func(t *testing.T) kvtest.Queue { return newQueue(t) })
}

func TestPubSub(t *testing.T) {
	kvtest.TestPubSub(t, func(t *testing.T) kvtest.PubSub { return redis.NewPubSub(testenv.Redis(t)) })
}

func TestRateLimiter(t *testing.T) {
	kvtest.TestRateLimiter(t, func(t *testing.T) kvtest.RateLimiter {
		return redis.NewRateLimiter(testenv.Redis(t))
	})
}

func newQueue(tb testing.TB) *redis.Queue {
	client, prefix := testenv.Redis(tb)
	return redis.NewQueue(client, prefix, redis.QueueOptions{})
}

func BenchmarkCacheGet(b *testing.B) {
	kvtest.BenchmarkCacheGet(b, func(b *testing.B) kvtest.Cache { return redis.NewCache(testenv.Redis(b)) })
}

func BenchmarkQueuePublishConsume(b *testing.B) {
	kvtest.BenchmarkQueuePublishConsume(b, func(b *testing.B) kvtest.Queue { return newQueue(b) })
}
