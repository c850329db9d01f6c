package main

import (
	botapp "github.com/pergola-ai/pergola/application/bot"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newConversations wires the conversation and message use cases.
func newConversations(db *sqlstore.DB, ident *identityapp.Service, bots *botapp.Service) *convapp.Service {
	return &convapp.Service{}
}
