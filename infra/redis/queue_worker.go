package redis

import (
	"context"
	"errors"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// payloadField is the stream entry field holding the payload.
const payloadField = "p"

// readBlock bounds one blocking XREADGROUP, and so how long Consume takes
// to notice that its context is done (go-redis does not interrupt a
// blocked read when a context is cancelled).
const readBlock = 500 * time.Millisecond

// ackTimeout bounds the XACK after a handler succeeded; it runs even if the
// consumer is stopping, so finished work is not redone.
const ackTimeout = 5 * time.Second

// heartbeatScript resets the idle time of a pending entry (XCLAIM to the
// same consumer, JUSTID so the delivery count stays) only while that
// consumer still owns it, so a late heartbeat cannot take back a message
// another consumer has claimed. It returns 1 if renewed.
const heartbeatScript = `
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
if p[1] == nil or p[1][2] ~= ARGV[3] then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[3], 0, ARGV[2], 'JUSTID')
return 1`

// worker is one of Consume's handler loops. It claims timed-out pending
// entries every quarter of the visibility timeout, and otherwise reads new
// ones.
type worker struct {
	q                       *Queue
	stream, group, consumer string
	visibility              time.Duration
	handle                  Handler
	cursor                  string    // where the XAUTOCLAIM scan resumes
	nextClaim               time.Time // when to scan for timed-out entries
}

func (w *worker) run(ctx context.Context) error {
	for ctx.Err() == nil {
		msg, ok, err := w.next(ctx)
		if err == nil && ok {
			err = w.process(ctx, msg)
		}
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

func (w *worker) next(ctx context.Context) (Message, bool, error) {
	if !time.Now().Before(w.nextClaim) {
		if msg, ok, err := w.claim(ctx); err != nil || ok {
			return msg, ok, err
		}
	}
	return w.read(ctx)
}

// claim takes over one entry of the group that has been idle for the
// visibility timeout, whichever consumer held it.
func (w *worker) claim(ctx context.Context) (Message, bool, error) {
	msgs, next, err := w.q.client.XAutoClaim(ctx, &goredis.XAutoClaimArgs{
		Stream: w.stream, Group: w.group, Consumer: w.consumer,
		MinIdle: w.visibility, Start: w.cursor, Count: 1,
	}).Result()
	if err != nil {
		return Message{}, false, w.recover(ctx, "claim pending messages", err)
	}
	w.cursor = next
	if next == "0-0" { // scanned the whole pending list
		w.nextClaim = time.Now().Add(w.visibility / 4)
	}
	if len(msgs) == 0 {
		return Message{}, false, nil
	}
	pending, err := w.q.client.XPendingExt(ctx, &goredis.XPendingExtArgs{
		Stream: w.stream, Group: w.group, Start: msgs[0].ID, End: msgs[0].ID, Count: 1,
	}).Result()
	if err != nil {
		return Message{}, false, fail("count deliveries", err)
	}
	if len(pending) == 0 { // acknowledged meanwhile by its previous consumer
		return Message{}, false, nil
	}
	return message(msgs[0], int(pending[0].RetryCount)), true, nil
}

// read waits up to readBlock (less if a claim scan is due) for a new entry.
func (w *worker) read(ctx context.Context) (Message, bool, error) {
	block := max(min(readBlock, time.Until(w.nextClaim)), 10*time.Millisecond)
	res, err := w.q.client.XReadGroup(ctx, &goredis.XReadGroupArgs{
		Group: w.group, Consumer: w.consumer, Streams: []string{w.stream, ">"},
		Count: 1, Block: block,
	}).Result()
	if errors.Is(err, goredis.Nil) {
		return Message{}, false, nil
	}
	if err != nil {
		return Message{}, false, w.recover(ctx, "read messages", err)
	}
	if len(res) == 0 || len(res[0].Messages) == 0 {
		return Message{}, false, nil
	}
	return message(res[0].Messages[0], 1), true, nil
}

// recover recreates the group if the stream was deleted under it; other
// errors are returned.
func (w *worker) recover(ctx context.Context, op string, err error) error {
	if strings.HasPrefix(err.Error(), "NOGROUP") {
		w.cursor = "0-0"
		return w.q.ensureGroup(ctx, w.stream, w.group)
	}
	return fail(op, err)
}

// process runs the handler, renewing the message while it runs, and acks
// on success. A handler error leaves the message pending.
func (w *worker) process(ctx context.Context, msg Message) error {
	// Renew even while Consume is stopping: a handler finishing its work
	// during shutdown keeps its message.
	hbCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		w.keepAlive(hbCtx, msg.ID)
	}()
	err := w.handle(ctx, msg)
	stop()
	<-hbDone
	if err != nil {
		return nil
	}
	ackCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ackTimeout)
	defer cancel()
	if err := w.q.client.XAck(ackCtx, w.stream, w.group, msg.ID).Err(); err != nil {
		return fail("ack "+msg.ID, err)
	}
	return nil
}

// keepAlive renews id every third of the visibility timeout until ctx is
// done or the message is no longer this consumer's. Failed renewals are
// retried at the next tick; if Redis stays away the message times out and
// is redelivered, as at-least-once allows.
func (w *worker) keepAlive(ctx context.Context, id string) {
	t := time.NewTicker(max(w.visibility/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		owned, err := w.q.heartbeat.Run(ctx, w.q.client, []string{w.stream}, w.group, id, w.consumer).Int()
		if err == nil && owned == 0 {
			return
		}
	}
}

func message(m goredis.XMessage, deliveries int) Message {
	payload, _ := m.Values[payloadField].(string)
	return Message{ID: m.ID, Payload: []byte(payload), Deliveries: deliveries}
}
