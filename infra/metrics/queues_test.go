package metrics

import (
	"context"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/infra/kvtest"
	"github.com/pergola-ai/pergola/infra/memory"
	"github.com/pergola-ai/pergola/infra/redis"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// statsQueue is a queue with stats: memory.Queue and redis.Queue.
type statsQueue interface {
	StatsSource
	Publish(ctx context.Context, topic string, payload []byte) (string, error)
	Consume(ctx context.Context, topic, group, consumer string, opts memory.ConsumeOptions, handle memory.Handler) error
}

func TestQueueGaugesMemory(t *testing.T) {
	testQueueGauges(t, memory.NewQueue(memory.QueueOptions{}))
}

func TestQueueGaugesRedis(t *testing.T) {
	client, prefix := testenv.Redis(t)
	testQueueGauges(t, redis.NewQueue(client, prefix, redis.QueueOptions{}))
}

// Three messages wait (no consumer yet), then one is held by a handler
// while two wait, then all are done: depth and the oldest's age follow.
func testQueueGauges(t *testing.T, q statsQueue) {
	ctx, cancel := context.WithTimeout(t.Context(), kvtest.Patience)
	defer cancel()
	reg := prometheus.NewRegistry()
	c := NewQueues(slog.New(slog.DiscardHandler), Queue{Name: "jobs", Source: q, Topic: "jobs", Group: "g"},
		Queue{Name: "idle", Source: q, Topic: "idle", Group: "g"})
	c.now = func() time.Time { return time.Now().Add(time.Minute) } // every message is a minute old
	reg.MustRegister(c)
	for _, p := range []string{"a", "b", "c"} {
		if _, err := q.Publish(ctx, "jobs", []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	wantGauges(t, reg, "jobs", 3, 60)
	wantGauges(t, reg, "idle", 0, 0)
	held, release, done := make(chan string, 3), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- q.Consume(ctx, "jobs", "g", "w1", memory.ConsumeOptions{Concurrency: 1}, func(_ context.Context, m memory.Message) error {
			held <- string(m.Payload)
			<-release
			return nil
		})
	}()
	if got := <-held; got != "a" {
		t.Fatalf("first delivery = %q, want a", got)
	}
	wantGauges(t, reg, "jobs", 3, 60) // one being handled, two waiting
	close(release)
	for range 2 {
		<-held
	}
	waitFor(t, ctx, func() bool { return gauge(t, reg, "pergola_queue_depth", "jobs") == 0 })
	wantGauges(t, reg, "jobs", 0, 0)
	cancel()
	<-done
}

func wantGauges(t *testing.T, reg *prometheus.Registry, queue string, depth, age float64) {
	t.Helper()
	if got := gauge(t, reg, "pergola_queue_depth", queue); got != depth {
		t.Errorf("depth of %s = %v, want %v", queue, got, depth)
	}
	// A minute past publication, give or take the test's own run time.
	if got := gauge(t, reg, "pergola_queue_oldest_age_seconds", queue); math.Abs(got-age) > 5 {
		t.Errorf("oldest age of %s = %v, want about %v", queue, got, age)
	}
}

func gauge(t *testing.T, reg *prometheus.Registry, name, queue string) float64 {
	t.Helper()
	for _, m := range family(t, reg, name) {
		if labelsOf(m)["queue"] == queue {
			return m.Gauge.GetValue()
		}
	}
	t.Fatalf("no %s{queue=%q}", name, queue)
	return 0
}

func waitFor(t *testing.T, ctx context.Context, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatal("gave up waiting")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
