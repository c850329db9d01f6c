package redis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/domain/errs"
)

// DefaultVisibilityTimeout is used when ConsumeOptions.VisibilityTimeout is 0.
const DefaultVisibilityTimeout = 30 * time.Second

// DefaultMaxLen is used when QueueOptions.MaxLen is 0.
const DefaultMaxLen = 100_000

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
	// MaxLen bounds the entries kept per topic stream, acknowledged or not
	// (XADD MAXLEN ~, so Redis may keep somewhat more). 0 means
	// DefaultMaxLen. Keep it well above the largest backlog you expect.
	MaxLen int64
}

// Queue is an at-least-once work queue on Redis Streams, one stream per
// topic: each consumer group gets every message, each message goes to one
// consumer of the group at a time (XREADGROUP), a nil from the handler acks
// it (XACK), and messages left unacknowledged for the visibility timeout are
// claimed by another consumer of the group (XAUTOCLAIM). It is safe for
// concurrent use.
type Queue struct {
	client    goredis.UniversalClient
	keys      keyspace
	maxLen    int64
	heartbeat *goredis.Script
}

// NewQueue returns a Queue keeping its streams under prefix + "queue:".
func NewQueue(client goredis.UniversalClient, prefix string, opts QueueOptions) *Queue {
	if opts.MaxLen <= 0 {
		opts.MaxLen = DefaultMaxLen
	}
	return &Queue{
		client:    client,
		keys:      keyspace(prefix),
		maxLen:    opts.MaxLen,
		heartbeat: goredis.NewScript(heartbeatScript),
	}
}

// Publish appends payload to topic and returns its stream entry ID. An empty
// topic returns errs.ErrInvalid; Redis failures match errs.ErrUnavailable.
func (q *Queue) Publish(ctx context.Context, topic string, payload []byte) (string, error) {
	if err := checkName("topic", topic); err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	id, err := q.client.XAdd(ctx, &goredis.XAddArgs{
		Stream: q.keys.name("queue", topic),
		MaxLen: q.maxLen,
		Approx: true,
		Values: []any{payloadField, payload},
	}).Result()
	if err != nil {
		return "", fail("publish to "+topic, err)
	}
	return id, nil
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
