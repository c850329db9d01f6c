package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// Kind streams answers by editing the message it sent, and posts
// scheduled messages.
var (
	_ appchannel.Streamer = (*Kind)(nil)
	_ appchannel.Pusher   = (*Kind)(nil)
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

// editMessage is an editMessageText request.
type editMessage struct {
	ChatID    int64  `json:"chat_id"`
	MessageID int64  `json:"message_id"`
	Text      string `json:"text"`
	ParseMode string `json:"parse_mode,omitempty"`
}

// sentMessage is the handle of a message the bot sent: what
// editMessageText needs.
type sentMessage struct {
	ChatID    int64 `json:"chat_id"`
	MessageID int64 `json:"message_id"`
}

// Deliver sends text, Markdown, to the chat reply names with
// sendMessage: converted to Telegram HTML (parse_mode HTML), split into
// messages of at most 4,096 characters, the first one replying to the
// user's message, all in its forum topic if it has one. A piece Telegram
// cannot parse is sent again as plain text. 429 and 5xx are retried by
// the Kind's policy, honouring retry_after. A refused token is
// errs.ErrUnauthenticated with Telegram's words; a malformed reply is
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

// Parts cuts an answer into Telegram messages: at most 4,096 characters
// of the text as shown once converted to HTML.
func (k *Kind) Parts(text string) []string { return delivery.Split(text, MaxMessage, HTML) }

// MaxEdits is 0: Telegram does not limit the edits of a message.
func (k *Kind) MaxEdits() int { return 0 }

// SendPart sends part i of an answer with sendMessage as Deliver does
// (the first part replying to the user's message) and returns the
// message's handle, {"chat_id","message_id"}.
func (k *Kind) SendPart(ctx context.Context, c *channel.Channel, reply json.RawMessage, i int, text string) (json.RawMessage, error) {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err != nil || to.ChatID == 0 {
		return nil, errs.Invalid("reply", "must be a Telegram reply target {chat_id, message_id}")
	}
	m := outMessage{ChatID: to.ChatID, ThreadID: to.ThreadID}
	if i == 0 && to.MessageID != 0 {
		m.ReplyTo = &replyParameter{MessageID: to.MessageID, AllowSendingWithoutReply: true}
	}
	var out struct {
		MessageID int64 `json:"message_id"`
	}
	err := k.callText(ctx, c, "sendMessage", k.retry, text, &out, func(text, mode string) any {
		m.Text, m.ParseMode = text, mode
		return m
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(sentMessage{ChatID: to.ChatID, MessageID: out.MessageID})
}

// Edit replaces the text of the message handle names with
// editMessageText, in HTML (plain text when Telegram cannot parse it),
// once. Telegram's "message is not modified" (the text shown is already
// that) is success: the message shows what was asked.
func (k *Kind) Edit(ctx context.Context, c *channel.Channel, _, handle json.RawMessage, text string) error {
	var h sentMessage
	if err := json.Unmarshal(handle, &h); err != nil || h.ChatID == 0 || h.MessageID == 0 {
		return errs.Invalid("handle", "must be a Telegram message {chat_id, message_id}")
	}
	m := editMessage{ChatID: h.ChatID, MessageID: h.MessageID}
	err := k.callText(ctx, c, "editMessageText", delivery.NoRetry(), text, nil, func(text, mode string) any {
		m.Text, m.ParseMode = text, mode
		return m
	})
	if notModified(err) {
		return nil
	}
	return err
}

// callText calls method with the body build makes of md converted to
// HTML, under policy; when Telegram cannot parse the HTML it sends md
// again as plain text.
func (k *Kind) callText(ctx context.Context, c *channel.Channel, method string, policy delivery.Policy, md string, out any, build func(text, parseMode string) any) error {
	a := k.api(c)
	call := func(body any) error {
		return policy.Do(ctx, func(ctx context.Context) error { return a.call(ctx, method, body, out) })
	}
	err := call(build(HTML(md), "HTML"))
	if err == nil || !cannotParse(err) {
		return err
	}
	return call(build(md, ""))
}

func cannotParse(err error) bool {
	return errors.Is(err, errs.ErrInvalid) && strings.Contains(err.Error(), "can't parse entities")
}

func notModified(err error) bool {
	return errors.Is(err, errs.ErrInvalid) && strings.Contains(err.Error(), "message is not modified")
}

// PushTo addresses a new message, not a reply, to the Telegram chat
// chatID: a chat id (negative for groups), or "{chat id}:{topic id}" for
// a forum topic; the key is the one the chat's updates have.
func (k *Kind) PushTo(chatID string) (json.RawMessage, string, error) {
	chat, topic, _ := strings.Cut(chatID, ":")
	to := replyTo{}
	var err error
	if to.ChatID, err = strconv.ParseInt(chat, 10, 64); err != nil || to.ChatID == 0 {
		return nil, "", errs.Invalid("chat_id", "must be a Telegram chat id (a number, negative for groups), optionally followed by :{topic id}; got %q", chatID)
	}
	if topic != "" {
		if to.ThreadID, err = strconv.ParseInt(topic, 10, 64); err != nil || to.ThreadID <= 0 {
			return nil, "", errs.Invalid("chat_id", "the topic after the colon must be a Telegram message_thread_id; got %q", chatID)
		}
	}
	key := strconv.FormatInt(to.ChatID, 10)
	if to.ThreadID != 0 {
		key += ":" + strconv.FormatInt(to.ThreadID, 10)
	}
	reply, err := json.Marshal(to)
	return reply, key, err
}
