package main

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// pluginParts is what the plugin feature adds to the process.
type pluginParts struct {
	svc   *pluginapp.Service
	bind  []botapp.Option      // lets bots bind plugin tools
	tools []chatapp.ToolSource // plugin tools in the agents
}

// newPlugins wires the plugin use cases.
func newPlugins(db *sqlstore.DB, ident *identityapp.Service, cfg config.Config, box *secret.Box, log *slog.Logger, reg prometheus.Registerer) (*pluginParts, error) {
	return &pluginParts{svc: &pluginapp.Service{}}, nil
}
