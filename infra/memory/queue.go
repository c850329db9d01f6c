package memory

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// DefaultVisibilityTimeout is used when ConsumeOptions.VisibilityTimeout is 0.
const DefaultVisibilityTimeout = 30 * time.Second

// DefaultMaxBacklog is used when QueueOptions.MaxBacklog is 0.
const DefaultMaxBacklog = 1_000_000

// Message is one delivery of a published payload. ID is the one Publish
// returned; Deliveries is 1 the first time and counts up on redelivery.
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
// of the group may take it. A message whose handler is still running is
// never taken away, however long it runs.
//
// ConsumeOptions aliases an unnamed struct type shared with package redis.
type ConsumeOptions = struct {
	Concurrency       int
	VisibilityTimeout time.Duration
}

// Handler processes one message. Returning nil acknowledges it; returning an
// error leaves it pending, to be redelivered after the visibility timeout.
type Handler = func(ctx context.Context, msg Message) error

// QueueOptions tunes a Queue. The zero value is usable.
type QueueOptions struct {
	// MaxBacklog bounds the messages of a topic that some consumer group
	// has not acknowledged yet (a topic no group reads keeps all of them).
	// Publish refuses new messages while a topic is at the bound; no
	// accepted message is ever dropped. 0 means DefaultMaxBacklog.
	MaxBacklog int
}

// Queue is an in-process, at-least-once work queue with consumer groups,
// mirroring redis.Queue: each group gets every message of a topic, each
// message goes to one consumer of the group at a time, and unacknowledged
// messages are redelivered. A message stays in memory until every group
// has acknowledged it, and the backlog of a topic is bounded (see
// QueueOptions.MaxBacklog). Messages do not survive the process. It is safe
// for concurrent use.
type Queue struct {
	mu         sync.Mutex
	topics     map[string]*topic
	maxBacklog int
}

// NewQueue returns an empty Queue.
func NewQueue(opts QueueOptions) *Queue {
	if opts.MaxBacklog <= 0 {
		opts.MaxBacklog = DefaultMaxBacklog
	}
	return &Queue{topics: make(map[string]*topic), maxBacklog: opts.MaxBacklog}
}

// Publish appends payload to topic and returns its message ID. It returns
// errs.ErrInvalid for an empty topic, and a *errs.QueueFullError (matching
// errs.ErrRateLimited) when the topic's backlog is at its bound: then the
// message was not queued, and the caller may try again later.
func (q *Queue) Publish(_ context.Context, topicName string, payload []byte) (string, error) {
	if err := checkName("topic", topicName); err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	seq, ok := q.topic(topicName).append(clone(payload), q.maxBacklog)
	if !ok {
		return "", fmt.Errorf("publish: %w", &errs.QueueFullError{Topic: topicName, Limit: int64(q.maxBacklog)})
	}
	return strconv.FormatUint(seq, 10), nil
}

// Consume delivers messages of topic to handle as consumer of group until
// ctx is done, then waits for running handlers and returns nil. A group
// created by its first Consume starts at the oldest retained message.
// Invalid arguments return errs.ErrInvalid.
func (q *Queue) Consume(ctx context.Context, topicName, groupName, consumer string, opts ConsumeOptions, handle Handler) error {
	opts, err := consumeDefaults(topicName, groupName, consumer, opts)
	if err == nil && handle == nil {
		err = errs.Invalid("handle", "must not be nil")
	}
	if err != nil {
		return fmt.Errorf("consume %s/%s: %w", topicName, groupName, err)
	}
	q.mu.Lock()
	t := q.topic(topicName)
	g := t.group(groupName)
	q.mu.Unlock()

	var wg sync.WaitGroup
	for range opts.Concurrency {
		wg.Go(func() { q.work(ctx, t, g, opts.VisibilityTimeout, handle) })
	}
	wg.Wait()
	return nil
}

func (q *Queue) work(ctx context.Context, t *topic, g *group, visibility time.Duration, handle Handler) {
	for ctx.Err() == nil {
		q.mu.Lock()
		msg, ok, wait := t.next(g, visibility, time.Now())
		wake := t.wake
		q.mu.Unlock()
		if ok {
			q.run(ctx, t, g, msg, handle)
			continue
		}
		sleep(ctx, wake, wait)
	}
}

func (q *Queue) run(ctx context.Context, t *topic, g *group, msg Message, handle Handler) {
	err := handle(ctx, msg)
	seq, _ := strconv.ParseUint(msg.ID, 10, 64)
	q.mu.Lock()
	defer q.mu.Unlock()
	t.settle(g, seq, err == nil, time.Now())
}

func (q *Queue) topic(name string) *topic {
	t, ok := q.topics[name]
	if !ok {
		t = newTopic()
		q.topics[name] = t
	}
	return t
}

// sleep waits for ctx, wake, or wait to pass (never, if wait < 0).
func sleep(ctx context.Context, wake <-chan struct{}, wait time.Duration) {
	var timeout <-chan time.Time
	if wait >= 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
	case <-wake:
	case <-timeout:
	}
}

func consumeDefaults(topicName, groupName, consumer string, opts ConsumeOptions) (ConsumeOptions, error) {
	for _, f := range [][2]string{{"topic", topicName}, {"group", groupName}, {"consumer", consumer}} {
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
