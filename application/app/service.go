// Package app holds the use cases of apps (Coze's projects): managing an
// app and its declared variables, and the values the app's workflows read
// and assign for each end user.
//
// Every use case that takes a caller checks the token's workflow scope and
// membership of the app's workspace; an app the caller cannot reach
// answers like an unknown one ("app 42 not found").
package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it. It fails with errs.ErrForbidden.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// Service runs the app use cases.
type Service struct {
	apps   app.Store
	access Authorizer
}

// New returns the service.
func New(apps app.Store, access Authorizer) *Service { return &Service{apps: apps, access: access} }

// Input is what a builder sets on an app.
type Input struct {
	Name        string
	Description string
	Variables   []app.Variable
	// Conversations are the conversation templates besides Default; nil
	// keeps those an update finds.
	Conversations []string
}

// Create stores a new app of the workspace.
func (s *Service) Create(ctx context.Context, p identity.Principal, workspaceID int64, in Input) (*app.App, error) {
	if err := s.enter(ctx, p, workspaceID); err != nil {
		return nil, err
	}
	a := &app.App{WorkspaceID: workspaceID, CreatorID: p.UserID, Name: in.Name, Description: in.Description, Variables: in.Variables,
		Conversations: in.Conversations}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if err := s.apps.CreateApp(ctx, a); err != nil {
		return nil, fmt.Errorf("create app: %w", err)
	}
	return a, nil
}

// Get returns an app the caller may see.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*app.App, error) {
	return s.reach(ctx, p, id)
}

// List returns one page of a workspace's apps by name and their number.
func (s *Service) List(ctx context.Context, p identity.Principal, workspaceID int64, page identity.Page) ([]app.App, int64, error) {
	if err := s.enter(ctx, p, workspaceID); err != nil {
		return nil, 0, err
	}
	return s.apps.ListApps(ctx, workspaceID, page)
}

// Update replaces the app's name, description and variables with in's,
// and its conversation templates when in has them.
func (s *Service) Update(ctx context.Context, p identity.Principal, id int64, in Input) (*app.App, error) {
	a, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return s.apps.UpdateApp(ctx, a.WorkspaceID, id, func(a *app.App) error {
		a.Name, a.Description, a.Variables = in.Name, in.Description, in.Variables
		if in.Conversations != nil {
			a.Conversations = in.Conversations
		}
		return a.Validate()
	})
}

// Delete removes the app and the values of its variables. It needs the
// app's creator or an admin of its workspace (errs.ErrForbidden).
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64) error {
	a, err := s.reach(ctx, p, id)
	if err != nil {
		return err
	}
	if a.CreatorID != p.UserID {
		_, err := s.access.Authorize(ctx, p, a.WorkspaceID, identity.RoleAdmin)
		if errors.Is(err, errs.ErrForbidden) {
			return errs.Forbidden("only the app's creator or an admin of workspace %d may delete app %d", a.WorkspaceID, id)
		}
		if err != nil {
			return err
		}
	}
	return s.apps.DeleteApp(ctx, a.WorkspaceID, id)
}

func (s *Service) enter(ctx context.Context, p identity.Principal, workspaceID int64) error {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return err
	}
	if workspaceID <= 0 {
		return errs.Invalid("workspace_id", "is required")
	}
	_, err := s.access.Authorize(ctx, p, workspaceID, identity.RoleMember)
	return err
}

// reach loads an app of a workspace the caller is a member of.
func (s *Service) reach(ctx context.Context, p identity.Principal, id int64) (*app.App, error) {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return nil, err
	}
	a, err := s.apps.GetApp(ctx, id)
	if err != nil {
		return nil, err
	}
	_, err = s.access.Authorize(ctx, p, a.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, errs.NotFound("app", strconv.FormatInt(id, 10))
	}
	return a, err
}

// BindApp checks that a bot of the workspace may name the app: it must be
// an app of that workspace.
func (s *Service) BindApp(ctx context.Context, workspaceID, appID int64) error {
	a, err := s.apps.GetApp(ctx, appID)
	if errors.Is(err, errs.ErrNotFound) || err == nil && a.WorkspaceID != workspaceID {
		return errs.Invalid("app_id", "app %d is not an app of workspace %d", appID, workspaceID)
	}
	return err
}
