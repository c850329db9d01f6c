// Package bot holds the use cases of bots and their variables: drafts,
// publishing, versions, and the keyword-memory values end users have.
//
// Every use case that takes a caller checks the token's scope and the
// caller's membership of the bot's workspace. A bot the caller cannot
// reach answers exactly like an unknown one ("bot 42 not found"), so ids
// of other workspaces do not leak.
package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/domain/variable"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it. It fails with errs.ErrForbidden.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// ModelLookup answers which models exist; *modelreg.Registry implements it.
type ModelLookup interface {
	// Get returns a model or errs.ErrNotFound.
	Get(ctx context.Context, id string) (*llm.Model, error)
	// List returns every model, ordered by id.
	List(ctx context.Context) ([]llm.Model, error)
}

// Connector ids a bot can be published to, as Coze numbers them.
const (
	ConnectorAPI     = "1024" // the Coze-compatible API
	ConnectorChatSDK = "999"  // the web chat SDK
)

// PluginBinder checks the plugin tools a bot binds: each must be a tool of
// a plugin the workspace can use. At publish it pins each to a published
// plugin version (an empty version means the latest). Errors name the
// field, e.g. "plugins[1].tool".
type PluginBinder interface {
	BindPlugins(ctx context.Context, workspaceID int64, tools []bot.PluginTool, publish bool) ([]bot.PluginTool, error)
}

// TableBinder checks the tables a bot binds: each must be a table of the
// bot's workspace. Errors name the field, e.g. "tables[0].table_id".
type TableBinder interface {
	BindTables(ctx context.Context, workspaceID int64, tables []bot.TableRef) error
}

// WorkflowBinder checks the workflows a bot binds as tools: each must be
// a workflow of the workspace; at publish it pins each to a published
// version (an empty version means the latest). Errors name the field,
// e.g. "workflows[0].workflow_id".
type WorkflowBinder interface {
	BindWorkflows(ctx context.Context, workspaceID int64, refs []bot.WorkflowRef, publish bool) ([]bot.WorkflowRef, error)
}

// AppBinder checks the app a bot names: it must be an app of the bot's
// workspace. Errors name the field "app_id".
type AppBinder interface {
	BindApp(ctx context.Context, workspaceID, appID int64) error
}

// WithApps lets bots name an app, checked by b.
func WithApps(b AppBinder) Option { return func(s *Service) { s.apps = b } }

// ChannelLookup finds the channels publish may name; the channel store
// implements it. GetChannel returns errs.ErrNotFound for an unknown id.
type ChannelLookup interface {
	GetChannel(ctx context.Context, id int64) (*channel.Channel, error)
}

// WithChannels lets bots be published to their channels, found by l.
func WithChannels(l ChannelLookup) Option { return func(s *Service) { s.channels = l } }

// Service runs the bot use cases.
type Service struct {
	channels   ChannelLookup
	store      bot.Store
	vars       variable.Store
	access     Authorizer
	models     ModelLookup
	connectors []string
	plugins    PluginBinder
	tables     TableBinder
	workflows  WorkflowBinder
	apps       AppBinder
	knowledge  KnowledgeBases
	hub        *invalidation.Hub
	online     *invalidation.Cache[online]
}

// WithWorkflows lets bots bind workflows as tools, checked by b.
func WithWorkflows(b WorkflowBinder) Option { return func(s *Service) { s.workflows = b } }

// WithPlugins lets bots bind plugin tools, checked by b.
func WithPlugins(b PluginBinder) Option { return func(s *Service) { s.plugins = b } }

// WithTables lets bots bind tables, checked by b.
func WithTables(b TableBinder) Option { return func(s *Service) { s.tables = b } }

// Option tunes a Service.
type Option func(*Service)

// WithConnectors sets the connector ids bots may be published to; the
// default is ConnectorAPI and ConnectorChatSDK. Channels add theirs here.
func WithConnectors(ids ...string) Option {
	return func(s *Service) { s.connectors = ids }
}

// New returns a Service over the stores, the workspace access check and
// the model registry.
func New(store bot.Store, vars variable.Store, access Authorizer, models ModelLookup, opts ...Option) *Service {
	s := &Service{store: store, vars: vars, access: access, models: models,
		connectors: []string{ConnectorAPI, ConnectorChatSDK}}
	for _, o := range opts {
		o(s)
	}
	return s
}

func botNotFound(id int64) error { return errs.NotFound("bot", strconv.FormatInt(id, 10)) }

// reach loads a bot for a caller whose token has scope and who is a member
// of the bot's workspace, and returns the caller's membership with it. A
// bot the caller may not reach is reported as not found.
func (s *Service) reach(ctx context.Context, p identity.Principal, botID int64, scope string) (*bot.Bot, *identity.Member, error) {
	if err := p.RequireScope(scope); err != nil {
		return nil, nil, err
	}
	b, err := s.store.GetBot(ctx, botID)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, botNotFound(botID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load bot %d: %w", botID, err)
	}
	m, err := s.access.Authorize(ctx, p, b.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, nil, botNotFound(botID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load bot %d: %w", botID, err)
	}
	return b, m, nil
}
