package chat

import (
	"context"
	"errors"

	convapp "github.com/pergola-ai/pergola/application/conversation"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// Published resolves the bot version last published to a channel;
// *application/bot.Service implements it.
type Published interface {
	// ResolvePublished returns the bot and its version published to
	// connector; errs.ErrForbidden when it was never published there.
	ResolvePublished(ctx context.Context, botID int64, connector string) (*bot.Bot, *bot.Version, error)
}

// ChannelRequest is one end user's message that arrived through a
// channel.
type ChannelRequest struct {
	BotID          int64
	ChannelID      string // the connector id: the channel's id
	ConversationID int64  // 0: open a new conversation of the bot
	UserID         string // the end user, "{kind}:{platform user id}"
	Text           string
}

// StartForChannel starts a chat turn as Start does, on the bot version
// published to the channel rather than to the API, with the channel as
// connector. The channel runtime authenticated the platform, so no
// caller's principal is needed: a new conversation is opened on behalf of
// the bot's creator. A bot not published to the channel is
// errs.ErrForbidden; bad input is errs.ErrInvalid before anything is
// stored.
func (s *Service) StartForChannel(ctx context.Context, req ChannelRequest, sink Sink) (*conversation.Chat, error) {
	if s.d.Published == nil {
		return nil, errors.New("chat: channels are not wired to published versions")
	}
	if sink == nil {
		sink = discard{}
	}
	msgs := []InputMessage{{Role: conversation.RoleUser, Content: req.Text}}
	if err := s.checkChannelRequest(req, msgs); err != nil {
		return nil, err
	}
	b, v, err := s.d.Published.ResolvePublished(ctx, req.BotID, req.ChannelID)
	if err != nil {
		return nil, err
	}
	c, err := s.agentFor(ctx, b, &v.Config, v.Number)
	if err != nil {
		return nil, err
	}
	owner := identity.Principal{UserID: b.CreatorID, Scopes: []string{identity.ScopeChat}}
	values := s.prefetchValues(ctx, variable.Scope{BotID: b.ID, ConnectorID: req.ChannelID, UserID: req.UserID}, v.Config.Variables)
	// The channel vouches for the end user, not for the creator's
	// membership: MemberOf stays 0, so it is checked.
	conv, history, err := s.d.Conversations.ResolveTurn(ctx, owner, convapp.TurnQuery{ConversationID: req.ConversationID,
		BotID: b.ID, ConnectorID: req.ChannelID, HistoryRounds: v.Config.HistoryRounds})
	if err != nil {
		return nil, err
	}
	pl := turnPlan{bot: b, cfg: &v.Config, compiled: c, version: v.Number, conv: conv, history: history, values: values,
		connector: req.ChannelID}
	if err := s.followActive(ctx, &pl, RequestTools{}, req.UserID); err != nil {
		return nil, err
	}
	return s.begin(ctx, pl, Request{BotID: b.ID, ConversationID: conv.ID, UserID: req.UserID,
		AdditionalMessages: msgs, AutoSaveHistory: true}, sink)
}

func (s *Service) checkChannelRequest(req ChannelRequest, msgs []InputMessage) error {
	if err := checkUserID("user_id", req.UserID); err != nil {
		return err
	}
	if err := s.d.Conversations.ValidateMessages("text", msgs); err != nil {
		return err
	}
	return s.d.Limits.CheckText("text", req.Text)
}
