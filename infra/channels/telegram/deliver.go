package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// outMessage is a sendMessage request.
type outMessage struct {
	ChatID    int64           `json:"chat_id"`
	ThreadID  int64           `json:"message_thread_id,omitempty"`
	Text      string          `json:"text"`
	ParseMode string          `json:"parse_mode,omitempty"`
	ReplyTo   *replyParameter `json:"reply_parameters,omitempty"`
}

type replyParameter struct {
	MessageID                int64 `json:"message_id"`
	AllowSendingWithoutReply bool  `json:"allow_sending_without_reply"`
}

// Deliver sends text, Markdown, to the chat reply names with
// sendMessage: converted to Telegram HTML (parse_mode HTML), split into
// messages of at most 4,096 characters, the first one replying to the
// user's message, all in its forum topic if it has one. A piece Telegram cannot parse is sent again as plain
// text. 429 and 5xx are retried by the Kind's policy, honouring
// retry_after. A refused token is errs.ErrUnauthenticated with
// Telegram's words; a malformed reply is errs.ErrInvalid.
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err != nil || to.ChatID == 0 {
		return errs.Invalid("reply", "must be a Telegram reply target {chat_id, message_id}")
	}
	pieces := delivery.Split(text, MaxMessage, HTML)
	for i, piece := range pieces {
		m := outMessage{ChatID: to.ChatID, ThreadID: to.ThreadID, Text: HTML(piece), ParseMode: "HTML"}
		if i == 0 && to.MessageID != 0 {
			m.ReplyTo = &replyParameter{MessageID: to.MessageID, AllowSendingWithoutReply: true}
		}
		if err := k.send(ctx, c, m, piece); err != nil {
			return fmt.Errorf("message %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}

// send posts one message with retries, falling back to plain text when
// Telegram refuses the HTML.
func (k *Kind) send(ctx context.Context, c *channel.Channel, m outMessage, plain string) error {
	a := k.api(c)
	post := func(ctx context.Context) error { return a.call(ctx, "sendMessage", m, nil) }
	err := k.retry.Do(ctx, post)
	if err == nil || !cannotParse(err) {
		return err
	}
	m.Text, m.ParseMode = plain, ""
	return k.retry.Do(ctx, post)
}

func cannotParse(err error) bool {
	return errors.Is(err, errs.ErrInvalid) && strings.Contains(err.Error(), "can't parse entities")
}
