package main

import (
	identityapp "github.com/pergola-ai/pergola/application/identity"
	usageapp "github.com/pergola-ai/pergola/application/usage"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newUsage wires the usage reports over the platform database.
func newUsage(db *sqlstore.DB, ident *identityapp.Service) *usageapp.Service {
	return usageapp.New(db.Usage(), ident)
}
