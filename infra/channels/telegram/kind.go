// Package telegram is the Telegram kind of channel: it checks a bot's
// token with getMe, registers the channel's webhook with setWebhook,
// verifies and parses the updates Telegram posts, and answers with
// sendMessage in Telegram's HTML dialect.
//
// It speaks the Bot API over plain typed HTTP rather than a client
// library: the one in reach, go-telegram-bot-api v5.5.1, has not been
// released since 2021, predates reply_parameters, calls getMe in its
// constructor and hides retry_after behind its own error type, while the
// few calls needed here are one small JSON POST each.
package telegram

import (
	"net/http"
	"regexp"
	"sync"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// MaxMessage is Telegram's limit on one message's text, in UTF-16 code
// units of the text as shown.
const MaxMessage = 4096

// SecretHeader carries the channel's secret_token on every update.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// Kind implements application/channel's Platform and Adapter for
// Telegram channels. It is safe for concurrent use.
type Kind struct {
	client *http.Client
	retry  delivery.Policy

	mu   sync.Mutex
	bots map[string]botUser // getMe answers, by API base and token
}

// Kind is both steps of a Telegram channel.
var (
	_ appchannel.Platform = (*Kind)(nil)
	_ appchannel.Adapter  = (*Kind)(nil)
)

// Option tunes a Kind.
type Option func(*Kind)

// WithRetry sets how sends are retried (default delivery.DefaultPolicy).
func WithRetry(p delivery.Policy) Option { return func(k *Kind) { k.retry = p } }

// New returns the Telegram kind sending every request through client,
// which should be the guarded egress client.
func New(client *http.Client, opts ...Option) *Kind {
	k := &Kind{client: client, retry: delivery.DefaultPolicy(), bots: map[string]botUser{}}
	for _, o := range opts {
		o(k)
	}
	return k
}

var tokenShape = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]+$`)

// Validate checks that bot_token has the shape BotFather gives tokens;
// errors are errs.FieldError naming settings.bot_token.
func (k *Kind) Validate(s channel.Settings) error {
	if v, _ := s["bot_token"].(string); !tokenShape.MatchString(v) {
		return errs.Invalid("settings.bot_token", "must be the token BotFather gave the bot, such as 123456789:AAH…")
	}
	return nil
}

// api returns the Bot API of a channel.
func (k *Kind) api(c *channel.Channel) api {
	base, _ := c.Settings["api_base_url"].(string)
	if base == "" {
		base = channel.TelegramAPI
	}
	token, _ := c.Settings["bot_token"].(string)
	return api{client: k.client, base: base, token: token}
}

func setting(c *channel.Channel, name string) string {
	v, _ := c.Settings[name].(string)
	return v
}
