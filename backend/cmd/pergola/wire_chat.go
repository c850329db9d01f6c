package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/metrics"
	"github.com/pergola-ai/pergola/infra/provider"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newChat wires the agent runtime.
func newChat(db *sqlstore.DB, log *slog.Logger, reg prometheus.Registerer, models *modelreg.Registry,
	bots *botapp.Service, convs *convapp.Service, bus chatapp.Broadcaster, tools []chatapp.ToolSource, resumer chatapp.ToolResumer) *chatapp.Service {
	return chatapp.New(chatapp.Deps{
		Bots: bots, Conversations: conversations{convs}, Messages: db.Messages(), Chats: db.Chats(),
		Models: models, ChatModels: provider.Factory{HTTPClient: modelClient()}, IDs: db.IDs(), Broadcaster: bus,
		Tools: tools, Resumer: resumer, Hooks: []chatapp.Hook{metrics.NewChatHook(reg)}, Log: log,
	})
}

// modelClient is the HTTP client of model calls: connections are kept and
// reused (many chats stream from the same provider at once). There is no
// overall timeout: a stream lasts as long as the answer, bounded by the
// chat's context.
func modelClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 512
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: t}
}

// conversations adapts the conversation use cases to the runtime's port.
type conversations struct{ svc *convapp.Service }

func (c conversations) ResolveConversation(ctx context.Context, p identity.Principal, id, botID int64, connector string) (*conversation.Conversation, error) {
	return c.svc.ResolveConversation(ctx, p, id, botID, connector)
}

func (c conversations) ValidateMessages(at string, msgs []chatapp.InputMessage) error {
	return convapp.ValidateMessages(at, msgs)
}
