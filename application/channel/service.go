// Package channel holds the use cases of a bot's channels: creating them
// with settings checked against their kind, listing, changing, disabling
// and deleting them, and the URL each platform posts its events to.
//
// Access is that of the bot: the bot scope and membership of the bot's
// workspace; a channel of a bot the caller cannot reach answers exactly
// like an unknown one. Deleting a channel needs the bot's creator or an
// admin of the workspace, as deleting the bot does.
//
// Each kind's platform-specific steps sit behind Platform; the kinds
// without their own implementation yet use NoPlatform, which checks
// nothing beyond the settings' spec.
package channel

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// BotAccess reaches a bot for a caller and returns the caller's
// membership of its workspace; *application/bot.Service implements it.
// An unreachable bot is errs.ErrNotFound.
type BotAccess interface {
	Access(ctx context.Context, p identity.Principal, botID int64) (*bot.Bot, *identity.Member, error)
}

// Platform is what one kind of channel does with its platform beyond the
// settings' spec. The channels' runtime implements it per kind; until a
// kind has one, NoPlatform stands in.
type Platform interface {
	// Validate checks settings rules the spec cannot express; errors are
	// errs.FieldError naming "settings.<name>".
	Validate(s channel.Settings) error
	// CheckCredentials asks the platform whether the settings work (e.g.
	// Telegram getMe, Slack auth.test); a refused token is errs.ErrInvalid
	// naming the setting, with the platform's words.
	CheckCredentials(ctx context.Context, c *channel.Channel) error
	// RegisterWebhook tells the platform where to post events, where it
	// lets Pergola do so (Telegram setWebhook); called only when the
	// public URL is configured.
	RegisterWebhook(ctx context.Context, c *channel.Channel, webhookURL string) error
}

// NoPlatform is the Platform of kinds without their own yet: every step
// succeeds without calling anything.
type NoPlatform struct{}

// Validate accepts the settings.
func (NoPlatform) Validate(channel.Settings) error { return nil }

// CheckCredentials checks nothing.
func (NoPlatform) CheckCredentials(context.Context, *channel.Channel) error { return nil }

// RegisterWebhook registers nothing.
func (NoPlatform) RegisterWebhook(context.Context, *channel.Channel, string) error { return nil }

// Service runs the channel use cases.
type Service struct {
	store     channel.Store
	bots      BotAccess
	platforms map[channel.Kind]Platform
	publicURL string
	events    channel.EventStore
}

// Option tunes a Service.
type Option func(*Service)

// WithPlatform sets the platform steps of a kind.
func WithPlatform(k channel.Kind, p Platform) Option {
	return func(s *Service) { s.platforms[k] = p }
}

// WithPublicURL sets the base URL platforms reach the server at (no
// trailing slash); without it webhook URLs use each request's own base.
func WithPublicURL(u string) Option { return func(s *Service) { s.publicURL = u } }

// New returns a Service over the channel store and the bots' access check.
func New(store channel.Store, bots BotAccess, opts ...Option) *Service {
	s := &Service{store: store, bots: bots, platforms: map[channel.Kind]Platform{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// platform returns the steps of a kind.
func (s *Service) platform(k channel.Kind) Platform {
	if p, ok := s.platforms[k]; ok {
		return cleanPlatform{p}
	}
	return NoPlatform{}
}

// WebhookURL is where the platform of c posts its events:
// {public URL or requestBase}/channels/{kind}/{id}; "" for a web chat,
// which takes no events from a platform (see ChatURL).
func (s *Service) WebhookURL(requestBase string, c *channel.Channel) string {
	if c.Kind == channel.KindWeb {
		return ""
	}
	return s.base(requestBase) + "/channels/" + string(c.Kind) + "/" + strconv.FormatInt(c.ID, 10)
}

// ChatURL is the hosted page of a web chat, {public URL or
// requestBase}/chat/{id}; "" for other kinds.
func (s *Service) ChatURL(requestBase string, c *channel.Channel) string {
	if c.Kind != channel.KindWeb {
		return ""
	}
	return s.base(requestBase) + "/chat/" + strconv.FormatInt(c.ID, 10)
}

// EmbedHTML is the snippet a site adds to its pages to show a web chat's
// bubble; "" for other kinds.
func (s *Service) EmbedHTML(requestBase string, c *channel.Channel) string {
	if c.Kind != channel.KindWeb {
		return ""
	}
	return `<script src="` + s.base(requestBase) + `/embed.js" data-channel="` + strconv.FormatInt(c.ID, 10) + `" async></script>`
}

// base is PERGOLA_PUBLIC_URL, or the base of the request when unset.
func (s *Service) base(requestBase string) string {
	if s.publicURL != "" {
		return s.publicURL
	}
	return requestBase
}

func channelNotFound(id int64) error { return errs.NotFound("channel", strconv.FormatInt(id, 10)) }
