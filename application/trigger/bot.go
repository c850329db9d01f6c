package trigger

import (
	"context"
	"errors"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// ConnectorAPI is the connector of chats through the API, as
// application/bot and application/chat name it: the version a bot
// trigger aimed at an end user runs.
const ConnectorAPI = "1024"

// Bots finds the bots of triggers.
type Bots interface {
	// GetBot returns a bot whatever the caller, or errs.ErrNotFound
	// (bot.Store implements it).
	GetBot(ctx context.Context, id int64) (*bot.Bot, error)
	// ResolvePublished returns the version last published to connector,
	// errs.ErrForbidden when none (*application/bot.Service implements
	// it).
	ResolvePublished(ctx context.Context, botID int64, connector string) (*bot.Bot, *bot.Version, error)
}

// ChatRequest is a bot trigger's turn for an end user of the API.
type ChatRequest struct {
	BotID          int64
	ConversationID int64 // 0: a new conversation
	UserID         string
	Prompt         string
}

// Chats runs the turns of bot triggers aimed at end users of the API.
type Chats interface {
	// Chat starts a turn of the version of the bot published to the API,
	// as p, with the prompt as the end user's message and the answer kept
	// in the conversation, and returns the chat and its conversation. It
	// calls done once when the chat ended: nil when the bot answered. A
	// conversation that is gone is errs.ErrNotFound.
	Chat(ctx context.Context, p identity.Principal, req ChatRequest, done func(error)) (chatID, conversationID int64, err error)
}

// Channels posts the prompts of bot triggers aimed at channels;
// *application/channel.Runtime implements it.
type Channels interface {
	CheckPost(ctx context.Context, botID, channelID int64, chatID string) error
	Post(ctx context.Context, req channelapp.PostRequest) (*channel.Delivery, error)
}

// reachBot checks that the caller, a member of its workspace with a
// token of the workflow and bot scopes, can reach t's bot, published
// where t's answer goes; it returns the bot's workspace.
func (s *Service) reachBot(ctx context.Context, p identity.Principal, t *trigger.Trigger) (int64, error) {
	if s.d.Bots == nil {
		return 0, errs.New(errs.ErrUnavailable, "bot triggers are not available in this process")
	}
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return 0, err
	}
	if err := p.RequireScope(identity.ScopeBot); err != nil {
		return 0, err
	}
	b, err := s.d.Bots.GetBot(ctx, t.Bot.BotID)
	if err == nil {
		_, err = s.d.Access.Authorize(ctx, p, b.WorkspaceID, identity.RoleMember)
	}
	if errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrForbidden) {
		return 0, errs.Invalid("bot_id", "bot %d not found", t.Bot.BotID)
	}
	if err != nil {
		return 0, err
	}
	if err := s.checkDelivery(ctx, t); err != nil {
		return 0, err
	}
	return b.WorkspaceID, nil
}

// checkDelivery checks that t's bot is published where its answer goes:
// the channel (which must post into the chat), or the API.
func (s *Service) checkDelivery(ctx context.Context, t *trigger.Trigger) error {
	if t.ToChannel() {
		if s.d.Channels == nil {
			return errs.New(errs.ErrUnavailable, "channels do not post in this process")
		}
		return s.d.Channels.CheckPost(ctx, t.Bot.BotID, t.Bot.ChannelID, t.Bot.ChatID)
	}
	if s.d.Chats == nil {
		return errs.New(errs.ErrUnavailable, "bot chats are not available in this process")
	}
	_, _, err := s.d.Bots.ResolvePublished(ctx, t.Bot.BotID, ConnectorAPI)
	if errors.Is(err, errs.ErrForbidden) {
		return errs.Invalid("bot_id", "bot %d is not published to the API; publish it with connector_ids including %q", t.Bot.BotID, ConnectorAPI)
	}
	return err
}
