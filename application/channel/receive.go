package channel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// queued is the payload of a queued event: the stored event's id.
type queued struct {
	Event int64 `json:"event"`
}

// Receive handles one request a platform posted to
// /channels/{kind}/{id}. The channel must exist with that kind, serve
// (errs.ErrConflict when disabled) and have its bot published to it
// (errs.ErrForbidden); the kind's adapter then verifies the request
// (errs.ErrUnauthenticated, nothing stored) and parses it. Each new event
// is stored once per event id and queued, and the adapter's reaction
// returns at once; a retried event is acknowledged without being
// processed again. Inline adapters answer in the reaction itself.
func (r *Runtime) Receive(ctx context.Context, kind string, id int64, in Inbound) (Reaction, error) {
	c, a, err := r.target(ctx, kind, id)
	if err != nil {
		return Reaction{}, err
	}
	if in.Received.IsZero() {
		in.Received = r.d.Now()
	}
	re, err := a.Receive(ctx, c, in)
	if err != nil {
		return Reaction{}, err
	}
	if il, ok := a.(Inline); ok && il.AnswersInline(c) {
		return r.receiveInline(ctx, c, il, re)
	}
	for _, ev := range re.Events {
		if err := r.accept(ctx, c, ev); err != nil {
			return Reaction{}, err
		}
	}
	return re, nil
}

// newDelivery is the stored form of a new event.
func newDelivery(c *channel.Channel, ev Event) *channel.Delivery {
	return &channel.Delivery{ChannelID: c.ID, BotID: c.BotID, EventID: ev.ID, EndUser: string(c.Kind) + ":" + ev.UserID,
		ConversationKey: ev.ConversationKey, Text: ev.Text, NotText: ev.NotText, Reply: ev.Reply, Status: channel.DeliveryReceived}
}

// accept stores an event and queues it; a stored duplicate is left alone.
// When the queue refuses it, the event is marked failed, so it is not
// left waiting for a worker that never comes.
func (r *Runtime) accept(ctx context.Context, c *channel.Channel, ev Event) error {
	d, created, err := r.d.Events.RecordEvent(ctx, newDelivery(c, ev))
	if err != nil || !created {
		return err
	}
	payload, _ := json.Marshal(queued{Event: d.ID})
	if _, qerr := r.d.Queue.Publish(ctx, EventTopic, payload); qerr != nil {
		r.fail(context.WithoutCancel(ctx), d, "not processed: the queue did not take it: "+qerr.Error())
		return fmt.Errorf("queue channel event %s: %w", ev.ID, qerr)
	}
	return nil
}

// receiveInline stores the one event of an inline request and answers
// it before responding; a retried event gets the stored answer.
func (r *Runtime) receiveInline(ctx context.Context, c *channel.Channel, il Inline, re Reaction) (Reaction, error) {
	if len(re.Events) != 1 {
		return re, nil
	}
	d, created, err := r.d.Events.RecordEvent(ctx, newDelivery(c, re.Events[0]))
	if err != nil {
		return Reaction{}, err
	}
	if created {
		if d, err = r.answerInline(context.WithoutCancel(ctx), c, d); err != nil {
			return Reaction{}, err
		}
	} else if !d.Done() {
		return Reaction{}, errs.Conflict("event %s is being answered; retry in a few seconds for its answer", d.EventID)
	}
	return il.InlineReaction(c, d)
}

// answerInline answers an inline event, after the events of its
// conversation before it, and records the answer as delivered: the
// response that carries it is the send. When the conversation's lock
// cannot be had, the event is left failed and the error returned.
func (r *Runtime) answerInline(ctx context.Context, c *channel.Channel, d *channel.Delivery) (*channel.Delivery, error) {
	release, err := r.holdConversation(ctx, c, d.ConversationKey)
	if err != nil {
		r.fail(ctx, d, "not processed: "+err.Error())
		return nil, fmt.Errorf("lock the conversation of event %s: %w", d.EventID, err)
	}
	defer release()
	d = r.answer(ctx, c, d, nil, false)
	if d.Status != channel.DeliveryAnswered {
		return d, nil
	}
	return r.update(ctx, d, func(x *channel.Delivery) {
		x.Status, x.Attempts, x.LatencyMS = channel.DeliveryDelivered, 1, r.since(x)
	}), nil
}

// HandleEvent processes one queued event: the worker's handler. The
// events of one platform conversation are processed one at a time, in
// any process; an event already done is skipped, so a redelivered
// message does no harm. An event whose workspace holds its whole share
// of the workers goes back to the end of the queue (see takeShare).
func (r *Runtime) HandleEvent(ctx context.Context, payload []byte) error {
	var q queued
	if err := json.Unmarshal(payload, &q); err != nil || q.Event == 0 {
		r.d.Log.Warn("channels: dropped a malformed queue message", "payload", string(payload))
		return nil
	}
	d, c, err := r.pending(ctx, q.Event)
	if d == nil || err != nil {
		return err
	}
	leave, ok, err := r.takeShare(ctx, c.WorkspaceID, payload)
	if !ok {
		return err
	}
	defer leave()
	release, err := r.holdConversation(ctx, c, d.ConversationKey)
	if err != nil {
		return fmt.Errorf("lock the conversation of event %d: %w", d.ID, err)
	}
	defer release()
	// Read again under the lock: another worker may have processed it.
	if d, c, err = r.pending(ctx, q.Event); d != nil && err == nil {
		r.process(ctx, c, d)
	}
	if err != nil {
		return err
	}
	return ctx.Err() // a worker stopped half-way leaves the message for another
}

// pending loads a queued event that is not done and its channel; nil
// (and no error) when there is nothing to do: the event is done, or it or
// its channel was deleted.
func (r *Runtime) pending(ctx context.Context, id int64) (*channel.Delivery, *channel.Channel, error) {
	d, err := r.d.Events.GetEvent(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil || d.Done() {
		return nil, nil, err
	}
	c, err := r.d.Channels.GetChannel(ctx, d.ChannelID)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return d, c, nil
}

// process answers an event and delivers the answer, streaming it where
// the kind edits messages. A failed turn is tried again when it is due
// (see turnFailed); the apology is sent as a message of its own.
func (r *Runtime) process(ctx context.Context, c *channel.Channel, d *channel.Delivery) {
	if !c.Serves() {
		r.fail(ctx, d, "not processed: channel "+strconv.FormatInt(c.ID, 10)+" was disabled")
		return
	}
	var sent streamed
	for d.Status == channel.DeliveryReceived {
		if !r.waitDue(ctx, d) {
			return // shutting down: the queue gives the event to another process
		}
		st := r.stream(ctx, c, d)
		d = r.answer(ctx, c, d, st, true)
		sent.handle, sent.shown = st.finish()
		if ctx.Err() != nil {
			return
		}
	}
	if d.Apology {
		sent = streamed{}
	}
	if d.Status == channel.DeliveryAnswered {
		r.deliver(ctx, c, d, sent)
	}
}
