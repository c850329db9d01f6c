package channel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// NotTextAnswer is what the bot answers a message it cannot read, without
// asking the model.
const NotTextAnswer = "Sorry, I can only read text messages. Please send your question as text."

// answer runs one chat turn of an event (or gives the fixed answer to a
// message that is not text) and records the answer. A failed turn is
// recorded for another try (see retryTurn) when retry allows it and the
// event is young; otherwise the answer is the apology. st, when set,
// streams the answer while the model writes it.
func (r *Runtime) answer(ctx context.Context, c *channel.Channel, d *channel.Delivery, st *streamer, retry bool) *channel.Delivery {
	if d.NotText {
		return r.update(ctx, d, func(x *channel.Delivery) { x.Status, x.Answer = channel.DeliveryAnswered, NotTextAnswer })
	}
	ans, err := r.runTurn(ctx, c, d, st)
	if err != nil && ctx.Err() != nil {
		st.finish()
		return d // shutting down: the queue gives the event to another process
	}
	if err != nil {
		return r.turnFailed(ctx, d, st, err, retry)
	}
	return r.update(ctx, d, func(x *channel.Delivery) {
		x.Status, x.Answer, x.ChatID, x.ConversationID = channel.DeliveryAnswered, ans.Text, ans.ChatID, ans.ConversationID
		x.TurnAttempts, x.Error, x.NextAttemptAt = x.TurnAttempts+1, "", nil
	})
}

// runTurn runs the chat turn of an event in the conversation its
// platform conversation maps to (a new one the first time, or when that
// one was deleted) and records the mapping.
func (r *Runtime) runTurn(ctx context.Context, c *channel.Channel, d *channel.Delivery, st *streamer) (TurnAnswer, error) {
	convID, err := r.d.Events.Conversation(ctx, c.ID, d.ConversationKey)
	if err != nil {
		return TurnAnswer{}, fmt.Errorf("conversation: %w", err)
	}
	ans, err := r.turn(ctx, c, d, convID, st)
	if errors.Is(err, errs.ErrNotFound) && convID != 0 {
		ans, err = r.turn(ctx, c, d, 0, st) // its conversation was deleted: a new one
	}
	if err == nil {
		r.mapConversation(ctx, c, d.ConversationKey, convID, ans.ConversationID)
	}
	return ans, err
}

// turn runs the chat turn of an event in conversation convID (0: new).
func (r *Runtime) turn(ctx context.Context, c *channel.Channel, d *channel.Delivery, convID int64, st *streamer) (TurnAnswer, error) {
	return r.d.Turns.Answer(ctx, TurnRequest{BotID: c.BotID, ChannelID: c.ConnectorID(),
		ConversationID: convID, UserID: d.EndUser, Text: d.Text, Progress: st.progressFunc()})
}

// mapConversation records the conversation a platform conversation key
// now runs in: the first one, or the one replacing a deleted one.
func (r *Runtime) mapConversation(ctx context.Context, c *channel.Channel, key string, was, now int64) {
	var err error
	switch {
	case was == 0:
		_, err = r.d.Events.BindConversation(ctx, c.ID, key, now)
	case was != now:
		_, err = r.d.Events.RebindConversation(ctx, c.ID, key, was, now)
	}
	if err != nil {
		r.d.Log.Warn("channels: could not map a conversation", "channel", c.ID, "err", err)
	}
}

// deliver sends the answer through the adapter, retrying a failed send
// with a doubling backoff (or the wait the platform asked for) while
// attempts are left and the event is young; a refused token marks the
// channel failing. Each failure is recorded with when the next send is
// due. The answer stays stored with the chat either way. sent is what
// streaming showed of it.
func (r *Runtime) deliver(ctx context.Context, c *channel.Channel, d *channel.Delivery, sent streamed) {
	a, ok := r.d.Adapters[c.Kind]
	if !ok {
		r.fail(ctx, d, "no adapter delivers "+string(c.Kind)+" answers")
		return
	}
	for r.waitDue(ctx, d) {
		var err error
		d, err = r.send(ctx, a, c, d, sent)
		attempt := d.Attempts + 1
		if err == nil {
			r.update(ctx, d, func(x *channel.Delivery) {
				x.Status, x.Attempts, x.Error, x.NextAttemptAt, x.LatencyMS = channel.DeliveryDelivered, attempt, turnWhy(x), nil, r.since(x)
			})
			return
		}
		wait, again := r.retrySend(d, err, attempt)
		if !again {
			r.sendFailed(ctx, c, d, attempt, err)
			return
		}
		next := r.d.Now().Add(wait)
		d = r.update(ctx, d, func(x *channel.Delivery) {
			x.Attempts, x.NextAttemptAt = attempt, &next
			x.Error = withSendError(x, "send "+strconv.Itoa(attempt)+" failed, retrying: "+excerpt(err.Error()))
		})
	}
	// shutting down: the queue gives the event to another process
}

// sendFailed records that the answer could not be sent after attempt
// sends and marks the channel failing when its token was refused.
func (r *Runtime) sendFailed(ctx context.Context, c *channel.Channel, d *channel.Delivery, attempt int, err error) {
	r.update(ctx, d, func(x *channel.Delivery) {
		x.Status, x.Attempts, x.NextAttemptAt, x.LatencyMS = channel.DeliveryFailed, attempt, nil, r.since(x)
		x.Error = withSendError(x, "delivery failed after "+strconv.Itoa(attempt)+" attempts: "+excerpt(err.Error()))
	})
	if errors.Is(err, errs.ErrUnauthenticated) {
		r.markFailing(ctx, c, err)
	}
}

// markFailing records that the platform refused the channel's
// credentials.
func (r *Runtime) markFailing(ctx context.Context, c *channel.Channel, cause error) {
	_, err := r.d.Channels.UpdateChannel(ctx, c.BotID, c.ID, func(x *channel.Channel) error {
		if x.Status == channel.StatusActive {
			x.Status, x.StatusDetail = channel.StatusFailing, cause.Error()
		}
		return nil
	})
	if err != nil {
		r.d.Log.Warn("channels: could not mark a channel failing", "channel", c.ID, "err", err)
	}
}

// fail records an event as failed with why.
func (r *Runtime) fail(ctx context.Context, d *channel.Delivery, why string) *channel.Delivery {
	return r.update(ctx, d, func(x *channel.Delivery) {
		x.Status, x.Error, x.NextAttemptAt, x.LatencyMS = channel.DeliveryFailed, excerpt(why), nil, r.since(x)
	})
}

// update applies fn to the stored event; when the store fails it logs
// and applies fn to the copy in hand, so processing goes on.
func (r *Runtime) update(ctx context.Context, d *channel.Delivery, fn func(*channel.Delivery)) *channel.Delivery {
	out, err := r.d.Events.UpdateEvent(ctx, d.ID, func(x *channel.Delivery) error { fn(x); return nil })
	if err == nil {
		r.finished(ctx, d, out)
		return out
	}
	r.d.Log.Error("channels: could not record an event's progress", "event", d.ID, "err", err)
	cp := *d
	fn(&cp)
	return &cp
}

// since is the latency of an event so far, in milliseconds.
func (r *Runtime) since(d *channel.Delivery) int64 { return r.d.Now().Sub(d.CreatedAt).Milliseconds() }

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// permanent reports whether retrying a send cannot help.
func permanent(err error) bool {
	return errors.Is(err, errs.ErrUnauthenticated) || errors.Is(err, errs.ErrInvalid) || errors.Is(err, errs.ErrForbidden)
}

// retryAfter is an error of a send that says how long the platform
// asked to wait before the next one: *RetryError, and the kinds' own
// retryable errors (adapters must not retry themselves; see Adapter).
type waitAsker interface{ RetryAfter() time.Duration }

// pause is the wait before the next send: what the platform asked for
// (at most maxRetryAfter), or the backoff.
func pause(err error, backoff time.Duration) time.Duration {
	var ra waitAsker
	if errors.As(err, &ra) && ra.RetryAfter() > 0 {
		return min(ra.RetryAfter(), maxRetryAfter)
	}
	return backoff
}
