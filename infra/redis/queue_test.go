package redis_test

import (
	"context"
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
