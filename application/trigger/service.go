// Package trigger holds the use cases of triggers: managing them (scoped
// and role-checked like workflows) and firing them, on a schedule by the
// dispatcher of every process, or on a webhook call.
package trigger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	appwf "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// Runner starts and checks workflow runs; *appwf.Service implements it.
type Runner interface {
	RunAsync(ctx context.Context, p identity.Principal, req appwf.RunRequest) (*workflow.Run, error)
	Run(ctx context.Context, p identity.Principal, req appwf.RunRequest) (*appwf.Outcome, error)
	Prepare(ctx context.Context, p identity.Principal, req appwf.RunRequest) (*appwf.Prepared, error)
}

// Workflows reads a workflow's workspace; workflow.Store implements it.
type Workflows interface {
	GetWorkflow(ctx context.Context, id int64) (*workflow.Workflow, error)
}

// Deps is what the service is built from.
type Deps struct {
	Store     trigger.Store
	Access    Authorizer
	Runner    Runner
	Workflows Workflows
	Log       *slog.Logger
	// MinInterval is the shortest schedule interval (default a minute;
	// tests allow seconds).
	MinInterval time.Duration
	// Grace is how late a tick may run before it counts as missed
	// (default a minute).
	Grace time.Duration
	Now   func() time.Time
	// Limiter bounds the webhook calls of each trigger; nil: no bound.
	Limiter Limiter
	// Bots, Chats and Channels run bot triggers: without Bots they are
	// refused, without Channels those that post to a channel.
	Bots     Bots
	Chats    Chats
	Channels Channels
}

// Limiter allows limit events of key per window; the rate limiter of the
// API (in memory or Redis) implements it.
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error)
}

// DefaultRateLimit is the webhook calls a minute of a trigger that names
// none.
const DefaultRateLimit = 60

// Service runs the trigger use cases.
type Service struct{ d Deps }

// New returns a Service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.MinInterval <= 0 {
		d.MinInterval = trigger.MinInterval
	}
	if d.Grace <= 0 {
		d.Grace = time.Minute
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Create checks and stores a new trigger of a published workflow the
// caller can reach, active, with its first tick or a webhook secret
// (generated when none is given).
func (s *Service) Create(ctx context.Context, p identity.Principal, t *trigger.Trigger) (*trigger.Trigger, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	ws, err := s.reachTarget(ctx, p, t)
	if err != nil {
		return nil, err
	}
	t.ID, t.WorkspaceID, t.CreatorID, t.State, t.ConversationID = 0, ws, p.UserID, trigger.StateActive, 0
	if t.Kind == trigger.KindSchedule {
		if t.NextRun, err = s.firstTick(t); err != nil {
			return nil, err
		}
		if err := s.checkInputs(ctx, p, t); err != nil {
			return nil, err
		}
	} else if t.Secret == "" {
		t.Secret = newSecret()
	}
	if err := s.d.Store.Create(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// firstTick checks a schedule and returns its first tick from now.
func (s *Service) firstTick(t *trigger.Trigger) (*time.Time, error) {
	sch, err := trigger.ParseSchedule(t, s.d.MinInterval)
	if err != nil {
		return nil, err
	}
	next, err := sch.First(s.d.Now())
	if err != nil {
		return nil, err
	}
	return &next, nil
}

// checkInputs checks a workflow schedule's fixed inputs against the
// workflow's Start node, as its runs will, so that a missing or mistyped
// input is refused now (naming inputs.<name>) rather than failing every
// tick. A webhook's calls add inputs of their own: they are checked then.
func (s *Service) checkInputs(ctx context.Context, p identity.Principal, t *trigger.Trigger) error {
	if t.IsBot() || t.Kind != trigger.KindSchedule {
		return nil
	}
	_, err := s.d.Runner.Prepare(ctx, p, runRequest(t, t.Inputs))
	var fe *errs.FieldError
	if errors.As(err, &fe) {
		if name, ok := strings.CutPrefix(fe.Field, "parameters."); ok {
			return errs.Invalid("inputs."+name, "%s", fe.Reason)
		}
	}
	return err
}

func newSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// reachTarget checks that the caller can reach what t runs, published,
// and where a bot trigger's answer goes; it returns the workspace.
func (s *Service) reachTarget(ctx context.Context, p identity.Principal, t *trigger.Trigger) (int64, error) {
	if t.IsBot() {
		return s.reachBot(ctx, p, t)
	}
	w, err := s.reachWorkflow(ctx, p, t.WorkflowID)
	if err != nil {
		return 0, err
	}
	if !w.IsPublished() {
		return 0, errs.Invalid("workflow_id", "workflow %d is not published: publish it first", w.ID)
	}
	return w.WorkspaceID, nil
}

// reachWorkflow loads a workflow in a workspace where the caller is a
// member with a token of the workflow scope.
func (s *Service) reachWorkflow(ctx context.Context, p identity.Principal, id int64) (*workflow.Workflow, error) {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return nil, err
	}
	w, err := s.d.Workflows.GetWorkflow(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errs.Invalid("workflow_id", "workflow %d not found", id)
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.d.Access.Authorize(ctx, p, w.WorkspaceID, identity.RoleMember); err != nil {
		if errors.Is(err, errs.ErrForbidden) {
			return nil, errs.Invalid("workflow_id", "workflow %d not found", id)
		}
		return nil, err
	}
	return w, nil
}

// Get returns a trigger the caller can reach; one it cannot is not found.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*trigger.Trigger, error) {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return nil, err
	}
	t, err := s.d.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, err := s.d.Access.Authorize(ctx, p, t.WorkspaceID, identity.RoleMember); err != nil {
		if errors.Is(err, errs.ErrForbidden) {
			return nil, errs.NotFound("trigger", strconv.FormatInt(id, 10))
		}
		return nil, err
	}
	return t, nil
}

// List returns a page of the triggers of a workspace, oldest first, and
// how many it has.
func (s *Service) List(ctx context.Context, p identity.Principal, workspaceID int64, page identity.Page) ([]trigger.Trigger, int64, error) {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return nil, 0, err
	}
	if workspaceID <= 0 {
		return nil, 0, errs.Invalid("workspace_id", "is required")
	}
	if _, err := s.d.Access.Authorize(ctx, p, workspaceID, identity.RoleMember); err != nil {
		return nil, 0, err
	}
	return s.d.Store.List(ctx, workspaceID, page)
}

// Delete removes a trigger the caller can reach.
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64) error {
	if _, err := s.Get(ctx, p, id); err != nil {
		return err
	}
	return s.d.Store.Delete(ctx, id)
}

// Pause stops a trigger from firing.
func (s *Service) Pause(ctx context.Context, p identity.Principal, id int64) (*trigger.Trigger, error) {
	if _, err := s.Get(ctx, p, id); err != nil {
		return nil, err
	}
	if err := s.d.Store.SetState(ctx, id, trigger.StatePaused, "paused by a user", nil); err != nil {
		return nil, err
	}
	return s.d.Store.Get(ctx, id)
}

// Resume makes a trigger fire again, a schedule from its next future
// tick. A trigger whose workflow or bot is gone or unpublished stays
// paused.
func (s *Service) Resume(ctx context.Context, p identity.Principal, id int64) (*trigger.Trigger, error) {
	t, err := s.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if _, err := s.reachTarget(ctx, p, t); err != nil {
		return nil, err
	}
	var next *time.Time
	if t.Kind == trigger.KindSchedule {
		if next, err = s.firstTick(t); err != nil {
			return nil, fmt.Errorf("trigger %d schedule: %w", id, err)
		}
	}
	if err := s.d.Store.SetState(ctx, id, trigger.StateActive, "", next); err != nil {
		return nil, err
	}
	return s.d.Store.Get(ctx, id)
}
