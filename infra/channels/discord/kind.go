// Package discord is the Discord kind of channel, over Discord's
// Interactions Endpoint: it checks a bot token with GET /users/@me,
// verifies the Ed25519 signature of every interaction Discord posts,
// answers PING with PONG, defers slash commands at once ({"type":5}) and
// answers them later by editing the original response (and following it
// up with further messages when the answer is longer than 2,000
// characters).
//
// It speaks Discord's HTTP API over plain typed HTTP rather than
// github.com/bwmarrin/discordgo: discordgo's endpoints are package
// variables (a global base URL, where every channel has its own
// api_base_url), and the four calls needed here are small JSON requests.
//
// Discord has no API to set an application's Interactions Endpoint URL
// for a bot token: the builder pastes the channel's webhook URL into the
// application's General Information page of the developer portal, where
// Discord probes it with signed PINGs (and with forged signatures, which
// must be refused), so RegisterWebhook does nothing.
package discord

import (
	"context"
	"encoding/hex"
	"errors"
	"net/http"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// MaxMessage is Discord's limit on one message's content, in characters.
const MaxMessage = 2000

// Kind implements application/channel's Platform and Adapter for Discord
// channels. It is safe for concurrent use.
type Kind struct {
	client *http.Client
	retry  delivery.Policy
}

// Kind is both steps of a Discord channel.
var (
	_ appchannel.Platform = (*Kind)(nil)
	_ appchannel.Adapter  = (*Kind)(nil)
)

// Option tunes a Kind.
type Option func(*Kind)

// WithRetry sets how sends are retried (default delivery.DefaultPolicy).
func WithRetry(p delivery.Policy) Option { return func(k *Kind) { k.retry = p } }

// New returns the Discord kind sending every request through client,
// which should be the guarded egress client.
func New(client *http.Client, opts ...Option) *Kind {
	k := &Kind{client: client, retry: delivery.DefaultPolicy()}
	for _, o := range opts {
		o(k)
	}
	return k
}

// Validate checks that public_key is an Ed25519 public key written as
// 64 hexadecimal characters; errors are errs.FieldError naming
// settings.public_key.
func (k *Kind) Validate(s channel.Settings) error {
	v, _ := s["public_key"].(string)
	if b, err := hex.DecodeString(v); err != nil || len(b) != 32 {
		return errs.Invalid("settings.public_key", "must be the application's public key: 64 hexadecimal characters (developer portal, General Information)")
	}
	return nil
}

// CheckCredentials asks GET /users/@me whether bot_token works. A
// refused token is errs.ErrInvalid naming settings.bot_token with
// Discord's words, an api_base_url the egress guard refuses
// errs.ErrInvalid naming settings.api_base_url; no answer is
// errs.ErrUnavailable.
func (k *Kind) CheckCredentials(ctx context.Context, c *channel.Channel) error {
	var me struct {
		ID  string `json:"id"`
		Bot bool   `json:"bot"`
	}
	err := delivery.Once(k.api(c).call(ctx, http.MethodGet, "/users/@me", true, nil, &me))
	switch {
	case errors.Is(err, errs.ErrUnauthenticated):
		return errs.Invalid("settings.bot_token", "was refused by Discord: %v", err)
	case errors.Is(err, errs.ErrForbidden):
		return errs.Invalid("settings.api_base_url", "cannot be reached: %v", err)
	case err == nil && !me.Bot:
		return errs.Invalid("settings.bot_token", "must be a bot's token (Bot page of the application), not a user's")
	}
	return err
}

// RegisterWebhook does nothing: the Interactions Endpoint URL is set in
// the developer portal, not through the API.
func (k *Kind) RegisterWebhook(context.Context, *channel.Channel, string) error { return nil }

// api returns Discord's HTTP API for a channel.
func (k *Kind) api(c *channel.Channel) api {
	base := setting(c, "api_base_url")
	if base == "" {
		base = channel.DiscordAPI
	}
	return api{client: k.client, base: base, token: setting(c, "bot_token")}
}

func setting(c *channel.Channel, name string) string {
	v, _ := c.Settings[name].(string)
	return v
}
