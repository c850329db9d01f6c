package redis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/domain/errs"
)

// DefaultVisibilityTimeout is used when ConsumeOptions.VisibilityTimeout is 0.
const DefaultVisibilityTimeout = 30 * time.Second

// DefaultMaxBacklog is used when QueueOptions.MaxBacklog is 0.
const DefaultMaxBacklog = 1_000_000

// Message is one delivery of a published payload. ID is the stream entry ID
// Publish returned; Deliveries is 1 the first time and counts up on
// redelivery (the entry's delivery count in the group).
//
// Message aliases an unnamed struct type, so memory.Message and
// redis.Message are the same type; keep the fields in step.
type Message = struct {
	ID         string
	Payload    []byte
	Deliveries int
}

// ConsumeOptions tunes Consume. The zero value means one handler at a time
// and DefaultVisibilityTimeout.
//
// Concurrency is how many handlers run in parallel. VisibilityTimeout is how
// long a message handed back unacknowledged (its handler failed, or its
// consumer stopped or died) stays with its consumer before another consumer
// of the group may take it. While a handler runs, its consumer renews the
// message every third of the timeout, so a running handler keeps it however
// long it takes, as long as its process is alive and reaches Redis.
//
// ConsumeOptions aliases an unnamed struct type shared with package memory.
type ConsumeOptions = struct {
	Concurrency       int
	VisibilityTimeout time.Duration
}

// Handler processes one message. Returning nil acknowledges it; returning an
// error leaves it pending, to be redelivered after the visibility timeout.
type Handler = func(ctx context.Context, msg Message) error

// QueueOptions tunes a Queue. The zero value is usable.
type QueueOptions struct {
	// MaxBacklog bounds the entries of a topic's stream that some consumer
	// group has not acknowledged yet (a stream no group reads keeps all of
	// them). Publish refuses new messages while a stream is at the bound;
	// no accepted message is ever trimmed. 0 means DefaultMaxBacklog.
	MaxBacklog int64
}

// Queue is an at-least-once work queue on Redis Streams, one stream per
// topic: each consumer group gets every message, each message goes to one
// consumer of the group at a time (XREADGROUP), a nil from the handler acks
// it (XACK), and messages left unacknowledged for the visibility timeout are
// claimed by another consumer of the group (XAUTOCLAIM). Entries every
// group has acknowledged are trimmed as messages are published, and the
// backlog is bounded (see QueueOptions.MaxBacklog), so a stream's memory
// is bounded too. It is safe for concurrent use.
type Queue struct {
	client        goredis.UniversalClient
	keys          keyspace
	maxBacklog    int64
	heartbeat     *goredis.Script
	publishScript *goredis.Script
	publishes     atomic.Uint64 // counts publishes, to trim every trimEvery
}

// NewQueue returns a Queue keeping its streams under prefix + "queue:".
func NewQueue(client goredis.UniversalClient, prefix string, opts QueueOptions) *Queue {
	if opts.MaxBacklog <= 0 {
		opts.MaxBacklog = DefaultMaxBacklog
	}
	return &Queue{
		client:        client,
		keys:          keyspace(prefix),
		maxBacklog:    opts.MaxBacklog,
		heartbeat:     goredis.NewScript(heartbeatScript),
		publishScript: goredis.NewScript(publishScript),
	}
}

// Publish appends payload to topic and returns its stream entry ID. An empty
// topic returns errs.ErrInvalid; Redis failures match errs.ErrUnavailable;
// a topic whose backlog is at its bound returns a *errs.QueueFullError
// (matching errs.ErrRateLimited): then the message was not queued, and the
// caller may try again later.
func (q *Queue) Publish(ctx context.Context, topic string, payload []byte) (string, error) {
	if err := checkName("topic", topic); err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	return q.publish(ctx, topic, payload)
}

// Consume delivers messages of topic to handle as consumer of group until
// ctx is done, then waits for running handlers and returns nil. A group
// created by its first Consume starts at the oldest entry in the stream.
// Invalid arguments return errs.ErrInvalid. If Redis fails, Consume stops
// its handlers and returns an error matching errs.ErrUnavailable; messages
// in flight stay pending and are redelivered, so the caller may simply call
// Consume again after a pause.
func (q *Queue) Consume(ctx context.Context, topic, group, consumer string, opts ConsumeOptions, handle Handler) error {
	opts, err := consumeDefaults(topic, group, consumer, opts)
	if err == nil && handle == nil {
		err = errs.Invalid("handle", "must not be nil")
	}
	if err != nil {
		return fmt.Errorf("consume %s/%s: %w", topic, group, err)
	}
	stream := q.keys.name("queue", topic)
	if err := q.ensureGroup(ctx, stream, group); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for range opts.Concurrency {
		w := &worker{q: q, stream: stream, group: group, consumer: consumer,
			visibility: opts.VisibilityTimeout, handle: handle, cursor: "0-0"}
		wg.Go(func() {
			if err := w.run(ctx); err != nil {
				once.Do(func() { first = fmt.Errorf("consume %s/%s: %w", topic, group, err) })
				cancel()
			}
		})
	}
	wg.Wait()
	return first
}

// ensureGroup creates group at the start of the stream (and the stream) if
// it does not exist yet.
func (q *Queue) ensureGroup(ctx context.Context, stream, group string) error {
	err := q.client.XGroupCreateMkStream(ctx, stream, group, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fail("create consumer group "+group, err)
	}
	return nil
}

func consumeDefaults(topic, group, consumer string, opts ConsumeOptions) (ConsumeOptions, error) {
	for _, f := range [][2]string{{"topic", topic}, {"group", group}, {"consumer", consumer}} {
		if err := checkName(f[0], f[1]); err != nil {
			return opts, err
		}
	}
	if opts.Concurrency < 0 {
		return opts, errs.Invalid("concurrency", "must not be negative, got %d", opts.Concurrency)
	}
	if err := checkTTL("visibility_timeout", opts.VisibilityTimeout, true); err != nil {
		return opts, err
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = 1
	}
	if opts.VisibilityTimeout == 0 {
		opts.VisibilityTimeout = DefaultVisibilityTimeout
	}
	return opts, nil
}
