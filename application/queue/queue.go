// Package queue is what the application's workers share of the work
// queue: the shapes of its deliveries and options, as aliases of plain
// struct types so that memory.Queue and redis.Queue satisfy Consumer
// without importing this package, and a pause that ends with its context.
package queue

import (
	"context"
	"time"
)

// Message is one delivery of the work queue (memory.Message and
// redis.Message).
type Message = struct {
	ID         string
	Payload    []byte
	Deliveries int
}

// ConsumeOptions tunes Consume (memory.ConsumeOptions and
// redis.ConsumeOptions).
type ConsumeOptions = struct {
	Concurrency       int
	VisibilityTimeout time.Duration
}

// Consumer delivers the messages of a topic to a handler until ctx ends;
// memory.Queue and redis.Queue implement it.
type Consumer interface {
	Consume(ctx context.Context, topic, group, consumer string, opts ConsumeOptions,
		handle func(ctx context.Context, msg Message) error) error
}

// Sleep waits d or until ctx ends, whichever comes first.
func Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
