// Package workflow holds the use cases of workflows: drafts validated
// before they are saved, published versions, runs (sync, streamed and
// test runs of drafts) with the record of every node, and the run history.
//
// Every use case that takes a caller checks the token's workflow scope and
// the caller's membership of the workflow's workspace. A workflow the
// caller cannot reach answers exactly like an unknown one.
package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it. It fails with errs.ErrForbidden.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// BotWorkspaces answers the workspace of a bot, so a run only uses the
// variables of a bot of its own workspace. It fails with errs.ErrNotFound.
type BotWorkspaces interface {
	BotWorkspace(ctx context.Context, botID int64) (int64, error)
}

// AppWorkspaces tells the workspace of an app (errs.ErrNotFound when
// unknown).
type AppWorkspaces interface {
	AppWorkspace(ctx context.Context, appID int64) (int64, error)
}

// IDs hands out the ids of runs (Coze's execute_id).
type IDs interface {
	Next() int64
}

// Deps is what the service is built from.
type Deps struct {
	Store   workflow.Store
	Runs    workflow.RunStore
	Access  Authorizer
	Bots    BotWorkspaces // nil: runs cannot name a bot
	Apps    AppWorkspaces // nil: runs cannot name an app
	Engine  *wf.Engine
	History *History
	// Writer stores direct runs (see Prepared.Execute) in one write when
	// they end; nil stores every run when it starts.
	Writer RunWriter
	IDs    IDs
	Log    *slog.Logger
	// States keeps leases, cancel requests and interrupts; nil keeps runs
	// in this process only: no resume, async runs or cancel.
	States RunStates
	// Queue carries async runs to the workers of every process; nil: no
	// async runs.
	Queue Publisher
	// Lease is how long a run stays with a process that stops renewing it
	// (default 30s); Owner names this process in leases (default: host,
	// pid and a random suffix); MaxAttempts bounds how often an async run
	// is started again after its process died (default 3).
	Lease       time.Duration
	Owner       string
	MaxAttempts int
	// Tracer sees every run that ends on this process; nil: none.
	Tracer RunTracer
}

// RunTracer is told of every stretch of a run that ended (its first
// start, or a resume), with when it started. It must not block.
type RunTracer interface {
	RunEnded(ctx context.Context, out *Outcome, start time.Time, resumed bool)
}

// Service runs the workflow use cases.
type Service struct{ d Deps }

// New returns a Service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Lease <= 0 {
		d.Lease = 30 * time.Second
	}
	if d.Owner == "" {
		d.Owner = defaultOwner()
	}
	if d.MaxAttempts <= 0 {
		d.MaxAttempts = 3
	}
	return &Service{d: d}
}

// reach loads a workflow for a caller whose token has the workflow scope
// and who is a member of its workspace. A workflow the caller may not
// reach is reported as not found.
func (s *Service) reach(ctx context.Context, p identity.Principal, id int64) (*workflow.Workflow, *identity.Member, error) {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return nil, nil, err
	}
	w, err := s.d.Store.GetWorkflow(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, workflow.NotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load workflow %d: %w", id, err)
	}
	m, err := s.d.Access.Authorize(ctx, p, w.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, nil, workflow.NotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load workflow %d: %w", id, err)
	}
	return w, m, nil
}

// enter checks that a caller may act in a workspace.
func (s *Service) enter(ctx context.Context, p identity.Principal, workspaceID int64) error {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return err
	}
	if workspaceID <= 0 {
		return errs.Invalid("workspace_id", "is required")
	}
	_, err := s.d.Access.Authorize(ctx, p, workspaceID, identity.RoleMember)
	return err
}

// NodeTypes describes every node type a workflow may use.
func (s *Service) NodeTypes() []wf.NodeTypeInfo { return s.d.Engine.Catalog().Types() }

// DSLSchema returns the JSON Schema of a workflow definition.
func (s *Service) DSLSchema() map[string]any { return s.d.Engine.Catalog().DSLSchema() }

// Limits returns the engine's limits, for the API to document.
func (s *Service) Limits() wf.Limits { return s.d.Engine.Limits() }
