package kvtest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Message is memory.Message and redis.Message: all alias this unnamed type.
type Message = struct {
	ID         string
	Payload    []byte
	Deliveries int
}

// ConsumeOptions is memory.ConsumeOptions and redis.ConsumeOptions.
type ConsumeOptions = struct {
	Concurrency       int
	VisibilityTimeout time.Duration
}

// Queue is the contract of memory.Queue and redis.Queue.
type Queue interface {
	Publish(ctx context.Context, topic string, payload []byte) (string, error)
	Consume(ctx context.Context, topic, group, consumer string, opts ConsumeOptions,
		handle func(ctx context.Context, msg Message) error) error
}

// TestQueue runs the Queue contract; newQueue returns an empty queue for one
// subtest.
func TestQueue(t *testing.T, newQueue func(t *testing.T) Queue) {
	cases := []struct {
		name string
		run  func(t *testing.T, q Queue)
	}{
		{"every message processed", queueEveryMessage},
		{"one consumer per message in a group", queueOneConsumer},
		{"every group gets every message", queueFanOut},
		{"failed handler is redelivered", queueHandlerError},
		{"stopped consumer's message is redelivered", queueConsumerStops},
		{"running handler keeps its message", queueSlowHandler},
		{"handlers run concurrently", queueConcurrency},
		{"one handler at a time by default", queueSerialDefault},
		{"invalid arguments", queueInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newQueue(t))
		})
	}
}

func queueEveryMessage(t *testing.T, q Queue) {
	r := newRecorder()
	before := publishN(t, q, "jobs", 20)
	consume(t, q, "jobs", "g", "c1", ConsumeOptions{}, r.handle)
	for id, p := range publishN(t, q, "jobs", 20) {
		before[id] = p
	}
	wantEach(t, r, before)
}

func queueOneConsumer(t *testing.T, q Queue) {
	r := newRecorder()
	sent := publishN(t, q, "jobs", 60)
	stop1 := consume(t, q, "jobs", "g", "c1", ConsumeOptions{}, r.handle)
	stop2 := consume(t, q, "jobs", "g", "c2", ConsumeOptions{Concurrency: 2}, r.handle)
	eventually(t, "all messages handled", func() bool { return r.distinct() >= len(sent) })
	stop1()
	stop2()
	wantEach(t, r, sent)
}

func queueFanOut(t *testing.T, q Queue) {
	r1, r2 := newRecorder(), newRecorder()
	sent := publishN(t, q, "events", 30)
	consume(t, q, "events", "g1", "c", ConsumeOptions{}, r1.handle)
	consume(t, q, "events", "g2", "c", ConsumeOptions{}, r2.handle)
	wantEach(t, r1, sent)
	wantEach(t, r2, sent)
}

// redelivered waits until id is handled successfully after more than one
// delivery, given the deliveries ok records.
func redelivered(t *testing.T, id string, ok <-chan Message) {
	t.Helper()
	msg, _ := receive(t, "the message to be redelivered", ok)
	if msg.ID != id || msg.Deliveries < 2 {
		t.Fatalf("redelivered %q with Deliveries %d; want %q with Deliveries > 1", msg.ID, msg.Deliveries, id)
	}
}

func queueHandlerError(t *testing.T, q Queue) {
	ok := make(chan Message, 10)
	consume(t, q, "jobs", "g", "c1", ConsumeOptions{VisibilityTimeout: short},
		func(_ context.Context, msg Message) error {
			if msg.Deliveries == 1 {
				return fmt.Errorf("transient failure")
			}
			ok <- msg
			return nil
		})
	id, err := q.Publish(background(t), "jobs", []byte("retry me"))
	noErr(t, "publish", err)
	redelivered(t, id, ok)
}

func queueConsumerStops(t *testing.T, q Queue) {
	opts := ConsumeOptions{VisibilityTimeout: short}
	got := make(chan Message, 1)
	stopA := consume(t, q, "jobs", "g", "a", opts, func(ctx context.Context, msg Message) error {
		got <- msg
		<-ctx.Done() // the consumer stops before the work is done
		return ctx.Err()
	})
	id, err := q.Publish(background(t), "jobs", []byte("unfinished"))
	noErr(t, "publish", err)
	receive(t, "consumer a to get the message", got)
	stopA()
	ok := make(chan Message, 10)
	consume(t, q, "jobs", "g", "b", opts, func(_ context.Context, msg Message) error {
		ok <- msg
		return nil
	})
	redelivered(t, id, ok)
}

// queueSlowHandler holds a message for several visibility timeouts while a
// second consumer polls, then checks nobody else got it.
func queueSlowHandler(t *testing.T, q Queue) {
	const visibility = 500 * time.Millisecond
	opts := ConsumeOptions{VisibilityTimeout: visibility}
	r := newRecorder()
	slow := func(ctx context.Context, msg Message) error {
		select {
		case <-time.After(4 * visibility):
		case <-ctx.Done():
		}
		return r.handle(ctx, msg)
	}
	id, err := q.Publish(background(t), "jobs", []byte("slow"))
	noErr(t, "publish", err)
	stopA := consume(t, q, "jobs", "g", "a", opts, slow)
	stopB := consume(t, q, "jobs", "g", "b", opts, slow)
	eventually(t, "the slow message to be handled", func() bool { return r.distinct() == 1 })
	stopA()
	stopB()
	if got := r.deliveries(id); len(got) != 1 || got[0].Deliveries != 1 {
		t.Fatalf("a message whose handler was running was redelivered: %+v", got)
	}
}

func queueConcurrency(t *testing.T, q Queue) {
	const n = 4
	var f inflight
	allIn := make(chan struct{})
	r := newRecorder()
	consume(t, q, "jobs", "g", "c", ConsumeOptions{Concurrency: n}, func(ctx context.Context, msg Message) error {
		defer f.leave()
		if f.enter() == n {
			close(allIn)
		}
		select {
		case <-allIn:
		case <-ctx.Done():
			return ctx.Err()
		}
		return r.handle(ctx, msg)
	})
	wantEach(t, r, publishN(t, q, "jobs", n))
}

func queueSerialDefault(t *testing.T, q Queue) {
	var f inflight
	r := newRecorder()
	consume(t, q, "jobs", "g", "c", ConsumeOptions{}, func(ctx context.Context, msg Message) error {
		defer f.leave()
		f.enter()
		time.Sleep(time.Millisecond) // give an overlapping handler a chance to show
		return r.handle(ctx, msg)
	})
	wantEach(t, r, publishN(t, q, "jobs", 10))
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.max != 1 {
		t.Fatalf("%d handlers ran at once with the default concurrency", f.max)
	}
}

func queueInvalid(t *testing.T, q Queue) {
	ctx := background(t)
	_, err := q.Publish(ctx, "", []byte("x"))
	wantInvalid(t, "publish to an empty topic", err)
	nop := func(context.Context, Message) error { return nil }
	wantInvalid(t, "consume with an empty group", q.Consume(ctx, "jobs", "", "c", ConsumeOptions{}, nop))
	wantInvalid(t, "consume with negative concurrency",
		q.Consume(ctx, "jobs", "g", "c", ConsumeOptions{Concurrency: -1}, nop))
}
