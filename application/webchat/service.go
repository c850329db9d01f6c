// Package webchat holds the use cases of the hosted web chat: the page at
// /chat/{channel_id} and the bubble sites embed, both served by `web`
// channels. It gives a browser its end user (anonymous, or identified by a
// token the site's backend signs), answers the end user's messages as they
// stream from the bot version published to the channel, keeps each end
// user's conversation across reloads and records every message as a
// delivery of the channel.
//
// End users: an anonymous one is "web:anon:<random>", its token signed by
// Pergola (the same key in every process); an identified one is
// "web:<sub>", its token a JWT (HS256) the site signs with the channel's
// end_user_secret, with aud the channel id and exp at most 24 hours ahead.
// The conversation of an end user is found through the channel's
// conversation map, keyed by the end user id: a browser never names a
// conversation.
package webchat

import (
	"context"
	"log/slog"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// Chats runs chat turns on the version published to a channel;
// *application/chat.Service implements it.
type Chats interface {
	StartForChannel(ctx context.Context, req chat.ChannelRequest, sink chat.Sink) (*conversation.Chat, error)
}

// Published tells which bot version a channel serves;
// *application/bot.Service implements it.
type Published interface {
	// ResolvePublished returns errs.ErrForbidden when the bot was never
	// published to connector.
	ResolvePublished(ctx context.Context, botID int64, connector string) (*bot.Bot, *bot.Version, error)
}

// Messages reads the stored messages of one conversation; the
// conversation message store implements it.
type Messages interface {
	ListMessages(ctx context.Context, conversationID int64, q conversation.MessageQuery) ([]conversation.Message, bool, error)
}

// Limiter counts events under a key in a sliding window, in memory or in
// Redis so that the limit holds across processes.
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error)
}

// Deps is what the web chat needs.
type Deps struct {
	Channels channel.Store
	Events   channel.EventStore
	Bots     Published
	Chats    Chats
	Messages Messages
	Limiter  Limiter
	// Limits bound an end user's message as on every surface; zero: the
	// defaults.
	Limits convapp.TextLimits
	// AnonKey signs the tokens of anonymous end users. Every process of
	// a deployment must derive the same key, so a token issued by one is
	// accepted by all.
	AnonKey []byte
	// SessionsPerMinute bounds the anonymous end users one client address
	// may start a minute; 0 means DefaultSessionsPerMinute.
	SessionsPerMinute int
	// TurnTimeout bounds the wait for a chat's end before its delivery is
	// recorded as failed; 0 means 10 minutes.
	TurnTimeout time.Duration
	Log         *slog.Logger
	Now         func() time.Time
}

// DefaultSessionsPerMinute is how many anonymous end users one client
// address may start a minute by default.
const DefaultSessionsPerMinute = 30

// Service runs the web chat use cases.
type Service struct{ d Deps }

// New returns the web chat over its dependencies.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.SessionsPerMinute <= 0 {
		d.SessionsPerMinute = DefaultSessionsPerMinute
	}
	if d.TurnTimeout <= 0 {
		d.TurnTimeout = 10 * time.Minute
	}
	return &Service{d: d}
}
