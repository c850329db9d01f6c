package webchat

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Channel returns the web channel id names, whatever its state, so that
// the HTTP layer can apply the channel's CORS rules to every answer,
// errors included. An unknown channel, or one of another kind, is
// errs.ErrNotFound.
func (s *Service) Channel(ctx context.Context, id int64) (*channel.Channel, error) {
	c, err := s.d.Channels.GetChannel(ctx, id)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && c.Kind != channel.KindWeb) {
		return nil, errs.New(errs.ErrNotFound, "web chat %d not found: check the channel id in the page address or the data-channel attribute", id)
	}
	if err != nil {
		return nil, fmt.Errorf("web chat %d: %w", id, err)
	}
	return c, nil
}

// Serving checks that c answers its users: a disabled channel is
// errs.ErrConflict, a bot not published to it errs.ErrForbidden. It
// returns the bot and the version published to the channel.
func (s *Service) Serving(ctx context.Context, c *channel.Channel) (*bot.Bot, *bot.Version, error) {
	if !c.Serves() {
		return nil, nil, errs.Conflict("this chat is switched off: channel %d is disabled (its owner can enable it with PATCH /api/bots/%d/channels/%d {\"status\":\"active\"})",
			c.ID, c.BotID, c.ID)
	}
	b, v, err := s.d.Bots.ResolvePublished(ctx, c.BotID, c.ConnectorID())
	if err != nil {
		return nil, nil, err
	}
	return b, v, nil
}

// Config is what a chat page shows before the first message.
type Config struct {
	ChannelID          int64
	ChannelName        string
	BotName            string
	IconURL            string
	Prologue           string
	SuggestedQuestions []string
	// Anonymous says whether a browser without a site token gets an end
	// user; Identified whether the channel takes site-signed tokens.
	Anonymous  bool
	Identified bool
}

// Config returns the page's configuration from the version published to
// c; errors as Serving.
func (s *Service) Config(ctx context.Context, c *channel.Channel) (*Config, error) {
	_, v, err := s.Serving(ctx, c)
	if err != nil {
		return nil, err
	}
	w := c.Web()
	name := c.Name
	if name == "" {
		name = "web " + strconv.FormatInt(c.ID, 10)
	}
	return &Config{ChannelID: c.ID, ChannelName: name, BotName: v.Config.Name, IconURL: v.Config.IconURL,
		Prologue: v.Config.Onboarding.Prologue, SuggestedQuestions: v.Config.Onboarding.SuggestedQuestions,
		Anonymous: w.AllowAnonymous, Identified: w.EndUserSecret != ""}, nil
}
