// Package plugin holds the use cases of plugins: registering HTTP APIs by
// their OpenAPI document and MCP servers by their URL, with auth; drafts
// and published versions; debug runs; the built-in catalog; the tools
// bots bind and the runtime calls; and the administrators' view and
// switches.
//
// Every call a plugin makes goes through the one HTTP client the service
// is given, the guarded client of the egress policy. A plugin the caller
// cannot reach answers exactly like an unknown one ("plugin 42 not
// found"), so ids of other workspaces do not leak.
package plugin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it. It fails with errs.ErrForbidden.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// Builtin is a built-in plugin of the catalog: its OpenAPI manifest says
// what its tools take, Invoke runs them in-process.
type Builtin struct {
	Key         string // stable identity, e.g. "time"; the plugin id derives from it
	Name        string
	Description string
	OpenAPI     []byte
	Invoke      func(ctx context.Context, operationID string, args map[string]any) (string, error)
}

// Deps is what the service needs.
type Deps struct {
	Store  plugin.Store
	Stats  plugin.StatsStore
	Access Authorizer
	Users  BotUsers // the published bots that bind a plugin, asked before deleting it; nil: not asked
	// HTTP is the guarded client every HTTP plugin call and OAuth2 token
	// request goes through (MCP connections get it through MCP).
	HTTP *http.Client
	// MCP connects to MCP servers; nil means MCP plugins cannot be added.
	MCP MCPDialer
	// MCPIdle is how long an unused MCP session is kept open; for a stdio
	// server, how long its process lives after its last call. 0 means 5
	// minutes.
	MCPIdle  time.Duration
	Builtins []Builtin
	Now      func() time.Time
	Log      *slog.Logger
	// StatsEvery is how often call statistics are written; 0 means 10s.
	StatsEvery time.Duration
}

// Service runs the plugin use cases.
type Service struct {
	d        Deps
	builtins map[int64]Builtin
	tokens   *tokenCache
	sessions *sessionPool
	stats    *recorder
	versions *specCache
}

// New returns the service. Call SyncCatalog once at start so the built-ins
// are stored, and Close at shutdown to write the last statistics.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.StatsEvery <= 0 {
		d.StatsEvery = 10 * time.Second
	}
	if d.HTTP == nil {
		d.HTTP = http.DefaultClient
	}
	d.HTTP = keepCredentialsHome(d.HTTP)
	s := &Service{
		d:        d,
		builtins: map[int64]Builtin{},
		tokens:   newTokenCache(d.HTTP, d.Now),
		sessions: newSessionPool(d.MCP, d.MCPIdle),
		stats:    newRecorder(d.Stats, d.StatsEvery, d.Now, d.Log),
		versions: newSpecCache(),
	}
	for _, b := range d.Builtins {
		s.builtins[CatalogID(b.Key)] = b
	}
	return s
}

// Close writes the statistics not written yet and closes MCP sessions.
func (s *Service) Close(ctx context.Context) error {
	s.sessions.closeAll()
	return s.stats.flush(ctx)
}

func pluginNotFound(id int64) error { return errs.NotFound("plugin", strconv.FormatInt(id, 10)) }

// reach loads a plugin for a caller whose token has the plugin scope: a
// plugin of a workspace the caller is a member of, or a built-in. It
// returns the caller's membership (nil for a built-in). A plugin the
// caller may not reach is reported as not found.
func (s *Service) reach(ctx context.Context, p identity.Principal, id int64) (*plugin.Plugin, *identity.Member, error) {
	if err := p.RequireScope(identity.ScopePlugin); err != nil {
		return nil, nil, err
	}
	pl, err := s.d.Store.GetPlugin(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, pluginNotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load plugin %d: %w", id, err)
	}
	if pl.IsCatalog() {
		return pl, nil, nil
	}
	m, err := s.d.Access.Authorize(ctx, p, pl.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, nil, pluginNotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load plugin %d: %w", id, err)
	}
	return pl, m, nil
}

// reachOwn is reach for changes: built-ins belong to no workspace and
// cannot be changed.
func (s *Service) reachOwn(ctx context.Context, p identity.Principal, id int64) (*plugin.Plugin, *identity.Member, error) {
	pl, m, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	if pl.IsCatalog() {
		return nil, nil, errs.Forbidden("plugin %d (%s) is a built-in plugin of the catalog and cannot be changed", id, pl.Name)
	}
	return pl, m, nil
}

// member checks the plugin scope and membership of a workspace.
func (s *Service) member(ctx context.Context, p identity.Principal, workspaceID int64) error {
	if err := p.RequireScope(identity.ScopePlugin); err != nil {
		return err
	}
	if workspaceID <= 0 {
		return errs.Invalid("workspace_id", "is required")
	}
	_, err := s.d.Access.Authorize(ctx, p, workspaceID, identity.RoleMember)
	return err
}
