package channel

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/application/queue"
)

// Consumer delivers the messages of a topic to a handler until ctx ends;
// memory.Queue and redis.Queue implement it.
type Consumer = queue.Consumer

// Work processes queued events, concurrency at a time, until ctx ends.
// Every process may run a worker; the queue gives each event to one.
// visibility is how long a message stays with a worker before the queue
// gives it to another: longer than a turn and its deliveries take.
func (r *Runtime) Work(ctx context.Context, q Consumer, group, consumer string, concurrency int, visibility time.Duration) {
	opts := queue.ConsumeOptions{Concurrency: concurrency, VisibilityTimeout: visibility}
	for ctx.Err() == nil {
		err := q.Consume(ctx, EventTopic, group, consumer, opts, func(ctx context.Context, msg queue.Message) error {
			return r.HandleEvent(ctx, msg.Payload)
		})
		if err != nil && ctx.Err() == nil {
			r.d.Log.Warn("channels worker: the queue failed; retrying", "err", err)
			sleep(ctx, time.Second)
		}
	}
}
