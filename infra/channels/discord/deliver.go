package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

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
// errs.ErrInvalid.
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err != nil || to.ApplicationID == "" || to.Token == "" {
		return errs.Invalid("reply", "must be a Discord reply target {application_id, token}")
	}
	hook := "/webhooks/" + url.PathEscape(to.ApplicationID) + "/" + url.PathEscape(to.Token)
	pieces := delivery.Split(text, MaxMessage, Markdown)
	a := k.api(c)
	for i, piece := range pieces {
		method, path := http.MethodPost, hook
		if i == 0 {
			method, path = http.MethodPatch, hook+"/messages/@original"
		}
		m := message{Content: Markdown(piece), AllowedMentions: allowedMentions{Parse: []string{}}}
		err := k.retry.Do(ctx, func(ctx context.Context) error { return a.call(ctx, method, path, false, m, nil) })
		if err != nil {
			return fmt.Errorf("message %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}

var massMention = regexp.MustCompile(`@(everyone|here)\b`)

// Markdown converts the bot's Markdown to Discord's, which reads the
// same syntax: it only defuses @everyone and @here with a zero-width
// space, so they show as written without pinging anyone.
func Markdown(s string) string {
	return massMention.ReplaceAllString(s, "@\u200b$1")
}
