package telegram

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// update is the part of a Telegram Update the channel reads.
type update struct {
	UpdateID int64    `json:"update_id"`
	Message  *message `json:"message"`
}

type message struct {
	MessageID int64    `json:"message_id"`
	ThreadID  int64    `json:"message_thread_id"`
	IsTopic   bool     `json:"is_topic_message"`
	From      *botUser `json:"from"`
	Chat      chat     `json:"chat"`
	Text      string   `json:"text"`
	Entities  []entity `json:"entities"`
	ReplyTo   *message `json:"reply_to_message"`
}

type chat struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
}

// entity marks a span of the text, in UTF-16 code units.
type entity struct {
	Type   string   `json:"type"`
	Offset int      `json:"offset"`
	Length int      `json:"length"`
	User   *botUser `json:"user"`
}

// replyTo is where an answer goes: the chat (and forum topic), as a
// reply to the message.
type replyTo struct {
	ChatID    int64 `json:"chat_id"`
	ThreadID  int64 `json:"message_thread_id,omitempty"`
	MessageID int64 `json:"message_id"`
}

// Receive checks the X-Telegram-Bot-Api-Secret-Token header against the
// channel's secret_token in constant time (errs.ErrUnauthenticated when
// missing or wrong) and parses a message update. Private chats are
// always answered; in groups only messages that mention the bot, name it
// in a command or reply to it. Messages of bots, and updates other than
// message, give no event. A body that is not an update is errs.ErrInvalid.
func (k *Kind) Receive(ctx context.Context, c *channel.Channel, in appchannel.Inbound) (appchannel.Reaction, error) {
	if err := checkSecret(setting(c, "secret_token"), in.Header(SecretHeader)); err != nil {
		return appchannel.Reaction{}, err
	}
	var u update
	if err := json.Unmarshal(in.Body, &u); err != nil || u.UpdateID == 0 {
		return appchannel.Reaction{}, errs.Invalid("body", "must be a Telegram update with an update_id")
	}
	m := u.Message
	if m == nil || m.From == nil || m.From.IsBot {
		return appchannel.Reaction{}, nil
	}
	text, answer, err := k.addressed(ctx, c, m)
	if err != nil || !answer {
		return appchannel.Reaction{}, err
	}
	return appchannel.Reaction{Events: []appchannel.Event{event(u, text)}}, nil
}

func checkSecret(want, got string) error {
	if got == "" {
		return errs.Unauthenticated("missing the %s header", SecretHeader)
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
		return errs.Unauthenticated("the %s header does not match the channel's secret_token", SecretHeader)
	}
	return nil
}

func event(u update, text string) appchannel.Event {
	m := u.Message
	to := replyTo{ChatID: m.Chat.ID, MessageID: m.MessageID}
	key := strconv.FormatInt(m.Chat.ID, 10)
	if m.IsTopic && m.ThreadID != 0 {
		// Each topic of a forum group is its own conversation.
		to.ThreadID = m.ThreadID
		key += ":" + strconv.FormatInt(m.ThreadID, 10)
	}
	reply, _ := json.Marshal(to)
	return appchannel.Event{
		ID:              strconv.FormatInt(u.UpdateID, 10),
		UserID:          strconv.FormatInt(m.From.ID, 10),
		ConversationKey: key,
		Text:            text,
		NotText:         strings.TrimSpace(m.Text) == "",
		Reply:           reply,
	}
}

// addressed reports whether the bot should answer m, and m's text with
// the bot's mention removed.
func (k *Kind) addressed(ctx context.Context, c *channel.Channel, m *message) (string, bool, error) {
	if m.Chat.Type == "private" {
		return strings.TrimSpace(m.Text), true, nil
	}
	if m.Chat.Type != "group" && m.Chat.Type != "supergroup" {
		return "", false, nil
	}
	bot, err := k.me(ctx, c)
	if err != nil {
		// Not ErrUnauthenticated even for a refused token: the request
		// itself was verified, and Telegram should deliver it again.
		return "", false, errs.New(errs.ErrUnavailable, "cannot tell whether the group message addresses the bot: %v", err)
	}
	text, mentioned := stripMention(m, bot)
	replied := m.ReplyTo != nil && m.ReplyTo.From != nil && m.ReplyTo.From.ID == bot.ID
	return text, mentioned || replied, nil
}

// stripMention removes the entities naming the bot from m's text and
// reports whether there was one: @username, a text mention of its id, or
// a command addressed to it (/ask@username).
func stripMention(m *message, bot botUser) (string, bool) {
	units := utf16.Encode([]rune(m.Text))
	found := false
	for i := len(m.Entities) - 1; i >= 0; i-- {
		e := m.Entities[i]
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > len(units) {
			continue
		}
		span := string(utf16.Decode(units[e.Offset : e.Offset+e.Length]))
		if !names(e, span, bot) {
			continue
		}
		found = true
		if e.Type == "bot_command" {
			span = span[:strings.LastIndex(span, "@")]
			units = append(append(units[:e.Offset:e.Offset], utf16.Encode([]rune(span))...), units[e.Offset+e.Length:]...)
			continue
		}
		units = append(units[:e.Offset:e.Offset], units[e.Offset+e.Length:]...)
	}
	return strings.TrimSpace(strings.ReplaceAll(string(utf16.Decode(units)), "  ", " ")), found
}

func names(e entity, span string, bot botUser) bool {
	at := "@" + strings.ToLower(bot.Username)
	switch e.Type {
	case "mention":
		return bot.Username != "" && strings.ToLower(span) == at
	case "text_mention":
		return e.User != nil && e.User.ID == bot.ID
	case "bot_command":
		return bot.Username != "" && strings.HasSuffix(strings.ToLower(span), at)
	}
	return false
}
