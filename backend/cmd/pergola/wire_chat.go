package main

import (
	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newChat wires the agent runtime.
func newChat(db *sqlstore.DB, ident *identityapp.Service, models *modelreg.Registry, bots *botapp.Service, convs *convapp.Service) *chatapp.Service {
	return &chatapp.Service{}
}
