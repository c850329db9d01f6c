package main

import (
	"log/slog"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/mcpserver"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	mcpapi "github.com/pergola-ai/pergola/backend/api/mcp"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/redis"
)

// newMCP builds the tools of the MCP server at /mcp: the published bots
// and workflows of the caller's workspaces, run by the chat runtime and
// the workflow engine.
func newMCP(ident *identityapp.Service, bots *botapp.Service, chats *chatapp.Service, workflows *workflowapp.Service,
	convs *convapp.Service, log *slog.Logger) *mcpserver.Service {
	d := mcpserver.Deps{Workspaces: ident, Bots: bots, Chats: chats, Conversations: convs, Log: log}
	if workflows != nil {
		d.Workflows = workflows // a nil *Service in the interface would not read as "no workflows"
	}
	return mcpserver.New(d)
}

// mcpSessions is where every process finds which token opened an MCP
// session: Redis when configured; nil otherwise (one process serves its
// own sessions).
func mcpSessions(shared *kv, cfg config.Config) mcpapi.SessionStore {
	if shared.redis == nil {
		return nil
	}
	return redis.NewCache(shared.redis, cfg.RedisPrefix)
}
