package conversation

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// CreateInput is what a new conversation starts with.
type CreateInput struct {
	// BotID binds the conversation to a bot and puts it in the bot's
	// workspace; 0 leaves it unbound.
	BotID       int64
	ConnectorID string // DefaultConnector when empty
	MetaData    map[string]string
	Messages    []MessageInput // stored in order in the first section
}

const maxConnectorLen = 64

// Create starts a conversation. With a bot it lives in the bot's workspace
// (errs.ErrNotFound "bot <id> not found" when the bot is unknown or out of
// the caller's reach); without one, in the one workspace the caller's
// token is restricted to, else in the caller's personal workspace. Bad
// input fails with errs.ErrInvalid naming the field, e.g.
// "messages[0].content", before anything is stored.
func (s *Service) Create(ctx context.Context, p identity.Principal, in CreateInput) (*conversation.Conversation, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	if err := s.CheckTexts("messages", in.Messages); err != nil {
		return nil, err
	}
	ws, err := s.workspaceFor(ctx, p, in.BotID)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, p, ws, in)
}

func (in CreateInput) validate() error {
	if len(in.ConnectorID) > maxConnectorLen {
		return errs.Invalid("connector_id", "must be at most %d characters", maxConnectorLen)
	}
	if err := validateMetaData("meta_data", in.MetaData); err != nil {
		return err
	}
	return ValidateMessages("messages", in.Messages)
}

// workspaceFor picks the workspace of a new conversation and checks that
// the caller may use it.
func (s *Service) workspaceFor(ctx context.Context, p identity.Principal, botID int64) (int64, error) {
	if botID != 0 {
		return s.botWorkspace(ctx, p, botID)
	}
	var ws int64
	if len(p.Workspaces) == 1 {
		ws = p.Workspaces[0]
	} else {
		personal, err := s.access.PersonalWorkspace(ctx, p.UserID)
		if errors.Is(err, errs.ErrNotFound) {
			return 0, errs.Invalid("bot_id", "is required: you have no personal workspace to keep a conversation without a bot")
		}
		if err != nil {
			return 0, fmt.Errorf("personal workspace: %w", err)
		}
		ws = personal
	}
	if err := s.member(ctx, p, ws); err != nil {
		return 0, err
	}
	return ws, nil
}

// create stores a validated conversation and its first messages. When the
// messages cannot be stored the conversation is removed again, so a
// failure leaves nothing behind.
func (s *Service) create(ctx context.Context, p identity.Principal, ws int64, in CreateInput) (*conversation.Conversation, error) {
	c := &conversation.Conversation{
		WorkspaceID: ws, BotID: in.BotID, CreatorID: p.UserID, ConnectorID: in.ConnectorID, MetaData: in.MetaData,
	}
	if c.ConnectorID == "" {
		c.ConnectorID = DefaultConnector
	}
	if err := s.convs.CreateConversation(ctx, c); err != nil {
		return nil, storeErr("create conversation", err)
	}
	if len(in.Messages) == 0 {
		return c, nil
	}
	msgs := make([]*conversation.Message, len(in.Messages))
	for i, m := range in.Messages {
		msgs[i] = NewMessage(c, m)
	}
	if err := s.msgs.CreateMessages(ctx, msgs...); err != nil {
		if derr := s.convs.DeleteConversation(context.WithoutCancel(ctx), ws, c.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		return nil, storeErr("create conversation messages", err)
	}
	return c, nil
}
