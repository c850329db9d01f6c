// Package conversation holds the use cases of conversations and their
// messages: create, read, rename, clear and delete conversations; create,
// list, modify and delete messages; feedback on answers. It also gives the
// chat runtime what it shares with them: message input validation and the
// conversation a chat runs in.
//
// Every use case takes the caller and requires the chat scope and
// membership of the conversation's workspace. A conversation the caller
// cannot reach answers exactly like an unknown one, so ids of other
// tenants cannot be probed.
package conversation

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Authorizer checks what a caller may do and knows each user's personal
// workspace. The identity service, with a small adapter, implements it.
type Authorizer interface {
	// Authorize fails with errs.ErrForbidden unless the caller may act in
	// the workspace with at least role min.
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
	// PersonalWorkspace returns the id of the user's personal workspace,
	// or errs.ErrNotFound when the user has none.
	PersonalWorkspace(ctx context.Context, userID int64) (int64, error)
}

// BotLookup finds the workspace of a bot.
type BotLookup interface {
	// BotWorkspace returns the id of the bot's workspace, or
	// errs.ErrNotFound for an unknown bot.
	BotWorkspace(ctx context.Context, botID int64) (int64, error)
}

// Service runs the conversation and message use cases.
type Service struct {
	convs  ConversationStore
	msgs   conversation.MessageStore
	chats  conversation.ChatStore
	access Authorizer
	bots   BotLookup
	limits TextLimits
	now    func() time.Time
}

// New returns a Service over the given stores and ports.
func New(convs ConversationStore, msgs conversation.MessageStore, chats conversation.ChatStore, access Authorizer, bots BotLookup) *Service {
	return &Service{convs: convs, msgs: msgs, chats: chats, access: access, bots: bots, now: time.Now}
}

// WithTextLimits sets the limit on a message's text that creating and
// changing messages enforce (the defaults until set) and returns s.
func (s *Service) WithTextLimits(l TextLimits) *Service {
	s.limits = l.WithDefaults()
	return s
}

// CheckTexts refuses messages whose content is over the message limit,
// with errs.ErrInvalid naming at[i].content; see TextLimits.
func (s *Service) CheckTexts(at string, in []MessageInput) error {
	return s.limits.CheckMessages(at, in)
}

// DefaultConnector is the connector of conversations made through the API
// when the caller names none; "1024" is Coze's API connector.
const DefaultConnector = "1024"

func conversationNotFound(id int64) error {
	return errs.NotFound("conversation", strconv.FormatInt(id, 10))
}

func botNotFound(id int64) error { return errs.NotFound("bot", strconv.FormatInt(id, 10)) }

// conversation loads a conversation the caller may use: the token has the
// chat scope and the caller is a member of its workspace. An unknown and
// an unreachable conversation both give errs.ErrNotFound with the same
// message.
func (s *Service) conversation(ctx context.Context, p identity.Principal, id int64) (*conversation.Conversation, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, err
	}
	c, err := s.convs.GetConversation(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, conversationNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("load conversation: %w", err)
	}
	if err := s.member(ctx, p, c.WorkspaceID); err != nil {
		if errors.Is(err, errs.ErrForbidden) {
			return nil, conversationNotFound(id)
		}
		return nil, err
	}
	return c, nil
}

// member checks that the caller may act in the workspace as a member.
func (s *Service) member(ctx context.Context, p identity.Principal, workspaceID int64) error {
	if _, err := s.access.Authorize(ctx, p, workspaceID, identity.RoleMember); err != nil {
		if errors.Is(err, errs.ErrForbidden) {
			return err
		}
		return fmt.Errorf("authorize: %w", err)
	}
	return nil
}

// botWorkspace returns the workspace of a bot the caller may use; an
// unknown and an unreachable bot both give errs.ErrNotFound.
func (s *Service) botWorkspace(ctx context.Context, p identity.Principal, botID int64) (int64, error) {
	ws, err := s.bots.BotWorkspace(ctx, botID)
	if errors.Is(err, errs.ErrNotFound) {
		return 0, botNotFound(botID)
	}
	if err != nil {
		return 0, fmt.Errorf("look up bot: %w", err)
	}
	if err := s.member(ctx, p, ws); err != nil {
		if errors.Is(err, errs.ErrForbidden) {
			return 0, botNotFound(botID)
		}
		return 0, err
	}
	return ws, nil
}

// storeErr passes the domain errors of a store through, for the message
// they carry, and prefixes the others with op.
func storeErr(op string, err error) error {
	if err == nil || errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrInvalid) || errors.Is(err, errs.ErrConflict) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}
