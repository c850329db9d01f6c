package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/slack-go/slack"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// Kind streams answers by updating the message it posted, and posts
// scheduled messages.
var (
	_ appchannel.Streamer = (*Kind)(nil)
	_ appchannel.Pusher   = (*Kind)(nil)
)

// slackID is a Slack conversation id: C…, G… or D… and letters or digits.
var slackID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,40}$`)

// PushTo addresses a new message, not in a thread, to the Slack
// conversation chatID (a channel id such as C0123ABCD, or a direct
// message's D… id); the key is the one the conversation's events have.
func (k *Kind) PushTo(chatID string) (json.RawMessage, string, error) {
	if !slackID.MatchString(chatID) {
		return nil, "", errs.Invalid("chat_id", "must be a Slack conversation id (C…, G… or D…, as in the channel's details); got %q", chatID)
	}
	reply, err := json.Marshal(replyTo{Channel: chatID})
	return reply, chatID, err
}

// posted is the handle of a message the bot posted: what chat.update
// needs (the channel id Slack answered, which for a direct message may
// differ from the one posted to).
type posted struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// Deliver posts text, Markdown, with chat.postMessage to the channel
// and thread reply names, converted to mrkdwn and split into messages of
// at most 4,000 characters. 429 and 5xx are retried by the Kind's
// policy, honouring Retry-After. A refused token is
// errs.ErrUnauthenticated with Slack's error code; a malformed reply is
// errs.ErrInvalid.
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	pieces := k.Parts(text)
	for i, piece := range pieces {
		if _, err := k.SendPart(ctx, c, reply, i, piece); err != nil {
			return fmt.Errorf("message %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}

// Parts cuts an answer into Slack messages of at most 4,000 characters
// of mrkdwn.
func (k *Kind) Parts(text string) []string { return delivery.Split(text, MaxMessage, Mrkdwn) }

// MaxEdits is 0: Slack does not limit the updates of a message.
func (k *Kind) MaxEdits() int { return 0 }

// SendPart posts part i of an answer with chat.postMessage, in the
// thread reply names, and returns the message's handle, {"channel","ts"}.
func (k *Kind) SendPart(ctx context.Context, c *channel.Channel, reply json.RawMessage, _ int, text string) (json.RawMessage, error) {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err != nil || to.Channel == "" {
		return nil, errs.Invalid("reply", "must be a Slack reply target {channel, thread_ts}")
	}
	opts := []slack.MsgOption{slack.MsgOptionText(Mrkdwn(text), false)}
	if to.ThreadTS != "" {
		opts = append(opts, slack.MsgOptionTS(to.ThreadTS))
	}
	api := k.api(c)
	var out posted
	err := k.retry.Do(ctx, func(ctx context.Context) error {
		var err error
		out.Channel, out.TS, err = api.PostMessageContext(ctx, to.Channel, opts...)
		return translate("chat.postMessage", err)
	})
	if err != nil {
		return nil, err
	}
	if out.Channel == "" {
		out.Channel = to.Channel
	}
	return json.Marshal(out)
}

// Edit replaces the text of the message handle names with chat.update,
// in mrkdwn, once.
func (k *Kind) Edit(ctx context.Context, c *channel.Channel, _, handle json.RawMessage, text string) error {
	var h posted
	if err := json.Unmarshal(handle, &h); err != nil || h.Channel == "" || h.TS == "" {
		return errs.Invalid("handle", "must be a Slack message {channel, ts}")
	}
	_, _, _, err := k.api(c).UpdateMessageContext(ctx, h.Channel, h.TS, slack.MsgOptionText(Mrkdwn(text), false))
	return translate("chat.update", err)
}
