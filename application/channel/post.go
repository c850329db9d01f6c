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

// Pusher is an Adapter that can post into a platform chat without a
// message there to answer: what a bot's scheduled message needs.
type Pusher interface {
	Adapter
	// PushTo returns the reply address of a new message in the platform
	// chat chatID (a Telegram chat id, a Slack or Discord channel id, a
	// Feishu/Lark chat id, a LINE user, group or room id) and the
	// conversation key the chat's own messages have, so that a scheduled
	// message and the chat's messages share one conversation. A chat id
	// the kind cannot read is errs.ErrInvalid on chat_id.
	PushTo(chatID string) (reply json.RawMessage, key string, err error)
}

// PostRequest is a message for a channel's bot to answer into a platform
// chat of the channel that nobody there sent: a bot trigger's prompt.
type PostRequest struct {
	BotID     int64
	ChannelID int64
	ChatID    string
	// EventID identifies the message among the channel's events: an id
	// posted already is not posted again.
	EventID string
	UserID  string // the end user of the chat turn
	Text    string
}

// CheckPost checks that botID can post through channelID into chatID:
// the channel is one of the bot's, of a kind that posts, with the bot
// published to it; errors are errs.ErrInvalid on channel_id or chat_id.
func (r *Runtime) CheckPost(ctx context.Context, botID, channelID int64, chatID string) error {
	c, err := r.d.Channels.GetChannel(ctx, channelID)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && c.BotID != botID) {
		return errs.Invalid("channel_id", "channel %d is not a channel of bot %d", channelID, botID)
	}
	if err != nil {
		return err
	}
	p, ok := r.d.Adapters[c.Kind].(Pusher)
	if !ok {
		return errs.Invalid("channel_id", "%s channels cannot post a message nobody asked for; use a Telegram, Slack, Discord, Feishu, Lark or LINE channel", c.Kind)
	}
	if _, _, err := p.PushTo(chatID); err != nil {
		return err
	}
	if _, _, err := r.d.Bots.ResolvePublished(ctx, botID, c.ConnectorID()); errors.Is(err, errs.ErrForbidden) {
		return errs.Invalid("channel_id", "bot %d is not published to channel %d; publish it with connector_ids including %q",
			botID, channelID, c.ConnectorID())
	} else if err != nil {
		return err
	}
	return nil
}

// Post stores the message as an event of the channel and queues it: a
// worker answers it with the bot version published to the channel and
// delivers the answer into the chat, as it does a platform's events (with
// the same retries, and in the chat's conversation). It returns the
// stored event; one posted already is returned as it is. A channel gone
// or of another bot is errs.ErrNotFound, a disabled one errs.ErrConflict,
// a bot no longer published to it errs.ErrForbidden.
func (r *Runtime) Post(ctx context.Context, req PostRequest) (*channel.Delivery, error) {
	c, err := r.d.Channels.GetChannel(ctx, req.ChannelID)
	if err == nil && c.BotID != req.BotID {
		err = errs.NotFound("channel", strconv.FormatInt(req.ChannelID, 10))
	}
	if err != nil {
		return nil, err
	}
	a, err := r.serving(ctx, c)
	if err != nil {
		return nil, err
	}
	p, ok := a.(Pusher)
	if !ok {
		return nil, errs.Invalid("channel_id", "%s channels cannot post a message nobody asked for", c.Kind)
	}
	reply, key, err := p.PushTo(req.ChatID)
	if err != nil {
		return nil, err
	}
	d, created, err := r.d.Events.RecordEvent(ctx, &channel.Delivery{ChannelID: c.ID, BotID: c.BotID, EventID: req.EventID,
		EndUser: req.UserID, ConversationKey: key, Text: req.Text, Reply: reply, Status: channel.DeliveryReceived})
	if err != nil || !created {
		return d, err
	}
	payload, _ := json.Marshal(queued{Event: d.ID})
	if _, qerr := r.d.Queue.Publish(ctx, EventTopic, payload); qerr != nil {
		d = r.fail(context.WithoutCancel(ctx), d, "not processed: the queue did not take it: "+qerr.Error())
		return d, fmt.Errorf("queue posted event %s: %w", req.EventID, qerr)
	}
	return d, nil
}

// finished tells RuntimeDeps.Done about an event that became done with
// the update from was to now.
func (r *Runtime) finished(ctx context.Context, was, now *channel.Delivery) {
	if r.d.Done != nil && !was.Done() && now.Done() {
		r.d.Done(context.WithoutCancel(ctx), now)
	}
}
