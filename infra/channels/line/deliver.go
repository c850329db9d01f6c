package line

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/line/line-bot-sdk-go/v8/linebot/messaging_api"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// Deliver sends text, Markdown, as plain text messages of at most 5,000
// characters, 5 to a call: the first call replies with the event's
// reply token and, when LINE refuses the token as used or expired (400
// "Invalid reply token"), pushes to the user, group or room instead;
// further calls push, and so do all of a reply without a reply token
// (PushTo's). Pushes carry an X-Line-Retry-Key derived from the
// event, so a push LINE already accepted (409) is not sent twice. 429
// and 5xx are retried by the Kind's policy; a refused token is
// errs.ErrUnauthenticated with LINE's message; a malformed reply is
// errs.ErrInvalid.
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err != nil || to.To == "" {
		return errs.Invalid("reply", "must be a LINE reply target {reply_token, to}")
	}
	batches := batch(delivery.Split(text, MaxMessage, Plain))
	for i, msgs := range batches {
		err := k.retry.Do(ctx, func(ctx context.Context) error { return k.send(ctx, c, to, i, msgs) })
		if err != nil {
			return fmt.Errorf("messages %d of %d: %w", i+1, len(batches), err)
		}
	}
	return nil
}

// send makes the i-th call of an answer: a reply first, a push otherwise.
func (k *Kind) send(ctx context.Context, c *channel.Channel, to replyTo, i int, msgs []messaging_api.MessageInterface) error {
	if i == 0 && to.ReplyToken != "" {
		err := k.call(ctx, c, "reply", func(api *messaging_api.MessagingApiAPI) (*http.Response, error) {
			res, _, err := api.ReplyMessageWithHttpInfo(&messaging_api.ReplyMessageRequest{ReplyToken: to.ReplyToken, Messages: msgs})
			return res, err
		})
		if !invalidReplyToken(err) {
			return err
		}
	}
	err := k.call(ctx, c, "push", func(api *messaging_api.MessagingApiAPI) (*http.Response, error) {
		res, _, err := api.PushMessageWithHttpInfo(&messaging_api.PushMessageRequest{To: to.To, Messages: msgs}, retryKey(to.EventID, i))
		return res, err
	})
	if retryKeyAccepted(err) {
		return nil
	}
	return err
}

// batch turns Markdown pieces into plain text messages, at most 5 a call.
func batch(pieces []string) [][]messaging_api.MessageInterface {
	var out [][]messaging_api.MessageInterface
	for i, p := range pieces {
		if i%MaxMessages == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], &messaging_api.TextMessage{Text: Plain(p)})
	}
	return out
}

// retryKey is the UUID-shaped X-Line-Retry-Key of the i-th push of the
// answer to an event: the same on every attempt, so LINE sends it once.
func retryKey(eventID string, i int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("pergola-line:%s:%d", eventID, i)))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
