package slack

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// Deliver posts text, Markdown, with chat.postMessage to the channel
// and thread reply names, converted to mrkdwn and split into messages of
// at most 4,000 characters. 429 and 5xx are retried by the Kind's
// policy, honouring Retry-After. A refused token is
// errs.ErrUnauthenticated with Slack's error code; a malformed reply is
// errs.ErrInvalid.
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err != nil || to.Channel == "" {
		return errs.Invalid("reply", "must be a Slack reply target {channel, thread_ts}")
	}
	api := k.api(c)
	pieces := delivery.Split(text, MaxMessage, Mrkdwn)
	for i, piece := range pieces {
		opts := []slack.MsgOption{slack.MsgOptionText(Mrkdwn(piece), false)}
		if to.ThreadTS != "" {
			opts = append(opts, slack.MsgOptionTS(to.ThreadTS))
		}
		err := k.retry.Do(ctx, func(ctx context.Context) error {
			_, _, err := api.PostMessageContext(ctx, to.Channel, opts...)
			return translate("chat.postMessage", err)
		})
		if err != nil {
			return fmt.Errorf("message %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}
