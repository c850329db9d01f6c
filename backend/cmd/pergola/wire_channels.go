package main

import (
	botapp "github.com/pergola-ai/pergola/application/bot"
	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newChannels wires the channel use cases over the bots. Every kind uses
// channelapp.NoPlatform until the channels' runtime brings its own
// (credential checks, webhook registration).
func newChannels(db *sqlstore.DB, bots *botapp.Service, cfg config.Config) *channelapp.Service {
	return channelapp.New(db.Channels(), bots, channelapp.WithPublicURL(cfg.PublicBase()))
}

// channelBinding lets bots be published to their channels.
func channelBinding(db *sqlstore.DB) botapp.Option { return botapp.WithChannels(db.Channels()) }
