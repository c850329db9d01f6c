package redis_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/infra/kvtest"
	"github.com/pergola-ai/pergola/infra/redis"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// A process that crashes mid-message never returns from its handler; the
// entry sits in its pending list until a live consumer claims it.
func TestQueueClaimsFromCrashedConsumer(t *testing.T) {
	client, prefix := testenv.Redis(t)
	q := redis.NewQueue(client, prefix, redis.QueueOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), kvtest.Patience)
	defer cancel()
	stream := prefix + "queue:jobs"
	if err := client.XGroupCreateMkStream(ctx, stream, "g", "0").Err(); err != nil {
		t.Fatalf("create group: %v", err)
	}
	id, err := q.Publish(ctx, "jobs", []byte("orphan"))
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	crashed := client.XReadGroup(ctx, &goredis.XReadGroupArgs{
		Group: "g", Consumer: "crashed", Streams: []string{stream, ">"}, Count: 1, Block: -1,
	})
	if err := crashed.Err(); err != nil {
		t.Fatalf("read as the crashed consumer: %v", err)
	}

	got := make(chan redis.Message, 1)
	done := make(chan error, 1)
	defer func() { <-done }()
	go func() {
		done <- q.Consume(ctx, "jobs", "g", "survivor", redis.ConsumeOptions{VisibilityTimeout: 100 * time.Millisecond},
			func(_ context.Context, msg redis.Message) error {
				got <- msg
				cancel()
				return nil
			})
	}()
	select {
	case msg := <-got:
		if msg.ID != id || string(msg.Payload) != "orphan" || msg.Deliveries != 2 {
			t.Fatalf("claimed %+v, want %s %q with Deliveries 2", msg, id, "orphan")
		}
	case <-ctx.Done():
		t.Fatal("the survivor never claimed the crashed consumer's message")
	}
}

func TestKeysLiveUnderPrefix(t *testing.T) {
	client, prefix := testenv.Redis(t)
	ctx := context.Background()
	if err := redis.NewCache(client, prefix).Set(ctx, "k", []byte("v"), 0); err != nil {
		t.Fatalf("set: %v", err)
	}
	if _, err := redis.NewLocker(client, prefix).Acquire(ctx, "k", time.Minute); err != nil {
		t.Fatalf("acquire: %v", err)
	}
	for _, key := range []string{prefix + "cache:k", prefix + "lock:k"} {
		if n, err := client.Exists(ctx, key).Result(); err != nil || n != 1 {
			t.Fatalf("exists %s = %d, %v; want 1", key, n, err)
		}
	}
}

func TestQueueBacklog(t *testing.T) {
	kvtest.TestQueueBacklog(t, func(t *testing.T, maxBacklog int) kvtest.Queue {
		client, prefix := testenv.Redis(t)
		return redis.NewQueue(client, prefix, redis.QueueOptions{MaxBacklog: int64(maxBacklog)})
	})
}

// Acknowledged entries leave the stream as messages are published, so its
// memory follows the backlog, not the traffic.
func TestQueueTrimsAcknowledgedEntries(t *testing.T) {
	client, prefix := testenv.Redis(t)
	q := redis.NewQueue(client, prefix, redis.QueueOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), kvtest.Patience)
	defer cancel()
	const n = 2000
	var handled atomic.Int64
	done := make(chan error, 1)
	go func() {
		done <- q.Consume(ctx, "jobs", "g", "c", redis.ConsumeOptions{Concurrency: 4},
			func(context.Context, redis.Message) error {
				handled.Add(1)
				return nil
			})
	}()
	defer func() { cancel(); <-done }()
	for i := range n {
		if _, err := q.Publish(ctx, "jobs", []byte(strconv.Itoa(i))); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	for handled.Load() < n && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the last acks follow the handlers
	// A trim runs every 64th publish: 64 more publishes make sure one runs
	// after all n were acknowledged.
	for i := range 64 {
		if _, err := q.Publish(ctx, "jobs", []byte("trim now "+strconv.Itoa(i))); err != nil {
			t.Fatalf("publish: %v", err)
		}
	}
	// Trimming is by whole stream nodes (100 entries by default), so a
	// node's worth may linger, and the 64 new ones may not be handled
	// yet; without trimming all n would be there.
	if l, err := client.XLen(ctx, prefix+"queue:jobs").Result(); err != nil || l > 250 {
		t.Fatalf("stream length after %d handled messages = %d, %v; want at most 250", n, l, err)
	}
}
