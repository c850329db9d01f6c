package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// Kind streams answers by editing the interaction's original response.
var _ appchannel.Streamer = (*Kind)(nil)

// message is the body of an edit or a follow-up message.
type message struct {
	Content         string          `json:"content"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
}

// allowedMentions with an empty parse list pings no one, whatever the
// text says.
type allowedMentions struct {
	Parse []string `json:"parse"`
}

// Deliver answers the deferred interaction reply names: the first piece
// edits the original response (PATCH
// /webhooks/{application_id}/{token}/messages/@original), further pieces
// are follow-up messages (POST /webhooks/{application_id}/{token}), each
// at most 2,000 characters, in Discord's Markdown (Markdown as the bot
// writes it, with @everyone and @here defused), pinging no one. 429 and
// 5xx are retried by the Kind's policy, honouring Retry-After. A refused
// token is errs.ErrUnauthenticated with Discord's words; an interaction
// past its 15 minutes is errs.ErrNotFound; a malformed reply is
// errs.ErrInvalid. A reply of PushTo, {channel_id}, posts every piece as
// a new message of the channel (POST /channels/{channel_id}/messages,
// as the bot).
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	pieces := k.Parts(text)
	for i, piece := range pieces {
		if _, err := k.SendPart(ctx, c, reply, i, piece); err != nil {
			return fmt.Errorf("message %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}

// Parts cuts an answer into Discord messages of at most 2,000
// characters.
func (k *Kind) Parts(text string) []string { return delivery.Split(text, MaxMessage, Markdown) }

// MaxEdits is 0: Discord does not limit the edits of a message.
func (k *Kind) MaxEdits() int { return 0 }

// sentMessage is the handle of a message of the interaction's webhook:
// "@original" for the original response, a follow-up's id otherwise.
type sentMessage struct {
	MessageID string `json:"message_id"`
}

// SendPart sends part i of an answer as Deliver does: to an interaction,
// part 0 edits the original response and the others are follow-ups; to
// a channel (a scheduled message), every part is a new message. It
// returns the message's handle, {"message_id"}.
func (k *Kind) SendPart(ctx context.Context, c *channel.Channel, reply json.RawMessage, i int, text string) (json.RawMessage, error) {
	rt, err := routeOf(reply)
	if err != nil {
		return nil, err
	}
	method, path, sent := http.MethodPost, rt.base, sentMessage{}
	switch {
	case rt.bot:
		path = rt.base + "/messages"
	case i == 0:
		method, path, sent.MessageID = http.MethodPatch, rt.base+"/messages/@original", "@original"
	}
	var out struct {
		ID string `json:"id"`
	}
	a := k.api(c)
	m := message{Content: Markdown(text), AllowedMentions: allowedMentions{Parse: []string{}}}
	if err := k.retry.Do(ctx, func(ctx context.Context) error { return a.call(ctx, method, path, rt.bot, m, &out) }); err != nil {
		return nil, err
	}
	if sent.MessageID == "" {
		sent.MessageID = out.ID
	}
	return json.Marshal(sent)
}

// Edit replaces the content of the message handle names, once: PATCH
// /webhooks/{application_id}/{token}/messages/{message_id} for an
// interaction's, PATCH /channels/{channel_id}/messages/{message_id} (as
// the bot) for a message the bot posted in a channel.
func (k *Kind) Edit(ctx context.Context, c *channel.Channel, reply, handle json.RawMessage, text string) error {
	rt, err := routeOf(reply)
	if err != nil {
		return err
	}
	var h sentMessage
	if err := json.Unmarshal(handle, &h); err != nil || h.MessageID == "" {
		return errs.Invalid("handle", "must be a Discord message {message_id}")
	}
	m := message{Content: Markdown(text), AllowedMentions: allowedMentions{Parse: []string{}}}
	return k.api(c).call(ctx, http.MethodPatch, rt.base+"/messages/"+url.PathEscape(h.MessageID), rt.bot, m, nil)
}

var massMention = regexp.MustCompile(`@(everyone|here)\b`)

// Markdown converts the bot's Markdown to Discord's, which reads the
// same syntax: it only defuses @everyone and @here with a zero-width
// space, so they show as written without pinging anyone.
func Markdown(s string) string {
	return massMention.ReplaceAllString(s, "@\u200b$1")
}
