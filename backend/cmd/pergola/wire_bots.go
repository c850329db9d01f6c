package main

import (
	botapp "github.com/pergola-ai/pergola/application/bot"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newBots wires the bot and variable use cases.
func newBots(db *sqlstore.DB, ident *identityapp.Service, models *modelreg.Registry, opts ...botapp.Option) *botapp.Service {
	return botapp.New(db.Bots(), db.Variables(), ident, models, opts...)
}
