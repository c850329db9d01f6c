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
		d = r.answer(context.WithoutCancel(ctx), c, d)
		d = r.finishInline(context.WithoutCancel(ctx), d)
	} else if !d.Done() {
		return Reaction{}, errs.Conflict("event %s is being answered; retry in a few seconds for its answer", d.EventID)
	}
	return il.InlineReaction(c, d)
}

// finishInline records an inline answer as delivered: the response that
// carries it is the send.
func (r *Runtime) finishInline(ctx context.Context, d *channel.Delivery) *channel.Delivery {
	if d.Status != channel.DeliveryAnswered {
		return d
	}
	return r.update(ctx, d, func(x *channel.Delivery) {
		x.Status, x.Attempts, x.LatencyMS = channel.DeliveryDelivered, 1, r.since(x)
	})
}

// HandleEvent processes one queued event: the worker's handler. An
// event already done is skipped, so a redelivered message does no harm.
func (r *Runtime) HandleEvent(ctx context.Context, payload []byte) error {
	var q queued
	if err := json.Unmarshal(payload, &q); err != nil || q.Event == 0 {
		r.d.Log.Warn("channels: dropped a malformed queue message", "payload", string(payload))
		return nil
	}
	d, err := r.d.Events.GetEvent(ctx, q.Event)
	if errors.Is(err, errs.ErrNotFound) {
		return nil // its channel was deleted
	}
	if err != nil {
		return err
	}
	if d.Done() {
		return nil
	}
	c, err := r.d.Channels.GetChannel(ctx, d.ChannelID)
	if errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	r.process(ctx, c, d)
	return ctx.Err() // a worker stopped half-way leaves the message for another
}

// process answers an event and delivers the answer.
func (r *Runtime) process(ctx context.Context, c *channel.Channel, d *channel.Delivery) {
	if !c.Serves() {
		r.fail(ctx, d, "not processed: channel "+strconv.FormatInt(c.ID, 10)+" was disabled")
		return
	}
	if d.Status == channel.DeliveryReceived {
		d = r.answer(ctx, c, d)
	}
	if d.Status == channel.DeliveryAnswered {
		r.deliver(ctx, c, d)
	}
}
