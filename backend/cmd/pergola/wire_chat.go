package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/egress"
	"github.com/pergola-ai/pergola/infra/provider"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newChat wires the agent runtime, with the text limits of the
// configuration and the egress guard that image URLs must pass.
func newChat(db *sqlstore.DB, chats *sqlstore.ChatStore, log *slog.Logger, metricsHook chatapp.Hook, models *modelreg.Registry, modelHTTP *http.Client,
	bots *botapp.Service, convs *convapp.Service, bus chatapp.Broadcaster, tools []chatapp.ToolSource, resumer chatapp.ToolResumer,
	files chatapp.Files, traceHook chatapp.Hook, recall chatapp.Recaller, sh *shares, cfg config.Config) (*chatapp.Service, error) {
	guard, err := egress.New(egress.Config{Allow: cfg.EgressAllow})
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_EGRESS_ALLOW: %w", err)
	}
	return chatapp.New(chatapp.Deps{
		Bots: bots, Conversations: conversations{convs}, Messages: db.Messages(), Chats: chats,
		Models: models, ChatModels: chatModels{inner: provider.Factory{HTTPClient: modelHTTP}, shares: sh}, IDs: db.IDs(), Broadcaster: bus,
		Tools: tools, Resumer: resumer, Published: bots, Files: files, Hooks: []chatapp.Hook{metricsHook, traceHook}, Log: log,
		Knowledge: recall, Limits: textLimits(cfg), URLs: guard, Opener: db.Conversations(),
		SubAgents: chatapp.SubAgentLimits{Depth: cfg.Chat.SubAgentDepth, TurnModelCalls: cfg.Chat.TurnModelCalls}, MaxHandoffs: cfg.Chat.MaxHandoffs, ActiveBots: db.Conversations(),
	}), nil
}

// textLimits are the configured limits on a message's and a history's
// text, the same for every surface.
func textLimits(cfg config.Config) convapp.TextLimits {
	return convapp.TextLimits{MessageChars: cfg.Chat.MaxMessageChars, HistoryChars: cfg.Chat.MaxHistoryChars}
}

// conversations adapts the conversation use cases to the runtime's port.
type conversations struct{ svc *convapp.Service }

func (c conversations) ResolveConversation(ctx context.Context, p identity.Principal, id, botID int64, connector string) (*conversation.Conversation, error) {
	return c.svc.ResolveConversation(ctx, p, id, botID, connector)
}

func (c conversations) ResolveTurn(ctx context.Context, p identity.Principal, q convapp.TurnQuery) (*conversation.Conversation, []conversation.Message, error) {
	return c.svc.ResolveTurn(ctx, p, q)
}

func (c conversations) ValidateMessages(at string, msgs []chatapp.InputMessage) error {
	return convapp.ValidateMessages(at, msgs)
}
