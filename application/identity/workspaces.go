package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// WorkspaceInput carries the editable fields of a workspace.
type WorkspaceInput struct {
	Name        *string
	Description *string
}

func (in WorkspaceInput) apply(ws *identity.Workspace) error {
	if in.Name != nil {
		if err := identity.ValidateName("name", *in.Name); err != nil {
			return err
		}
		ws.Name = strings.TrimSpace(*in.Name)
	}
	if in.Description != nil {
		if len(*in.Description) > 2000 {
			return errs.Invalid("description", "must be at most 2000 characters")
		}
		ws.Description = *in.Description
	}
	return nil
}

// CreateWorkspace creates a team workspace owned by the caller. A token
// without the workspace scope, or restricted to workspaces, gets
// ErrForbidden.
func (s *Service) CreateWorkspace(ctx context.Context, p identity.Principal, in WorkspaceInput) (*identity.Workspace, error) {
	if err := p.RequireScope(identity.ScopeWorkspace); err != nil {
		return nil, err
	}
	if len(p.Workspaces) > 0 {
		return nil, errs.Forbidden("a token restricted to workspaces %v cannot create a workspace it could not reach; use an unrestricted token", p.Workspaces)
	}
	if in.Name == nil {
		return nil, errs.Invalid("name", "is required")
	}
	ws := &identity.Workspace{Kind: identity.WorkspaceTeam, OwnerID: p.UserID}
	if err := in.apply(ws); err != nil {
		return nil, err
	}
	if err := s.workspaces.CreateWorkspace(ctx, ws); err != nil {
		return nil, fmt.Errorf("create workspace: %w", err)
	}
	return ws, nil
}

// ListWorkspaces lists the workspaces the caller belongs to and the token
// may reach, with the caller's role in each.
func (s *Service) ListWorkspaces(ctx context.Context, p identity.Principal, page identity.Page) ([]identity.MembershipView, int64, error) {
	if len(p.Workspaces) == 0 {
		return s.workspaces.ListWorkspacesOfUser(ctx, p.UserID, page)
	}
	// A restricted token names a few workspaces: read them and page here,
	// so pages stay full and the total counts only what the token reaches.
	var kept []identity.MembershipView
	for _, id := range p.Workspaces {
		v, err := s.GetWorkspace(ctx, p, id)
		if errors.Is(err, errs.ErrForbidden) || errors.Is(err, errs.ErrNotFound) {
			continue // the user left it, or it was deleted, since the token was made
		}
		if err != nil {
			return nil, 0, err
		}
		kept = append(kept, *v)
	}
	from := min(page.Offset(), len(kept))
	to := min(from+page.Size, len(kept))
	return kept[from:to], int64(len(kept)), nil
}

// GetWorkspace returns a workspace the caller belongs to.
func (s *Service) GetWorkspace(ctx context.Context, p identity.Principal, id int64) (*identity.MembershipView, error) {
	m, err := s.Authorize(ctx, p, id, identity.RoleMember)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspaces.GetWorkspace(ctx, id)
	if err != nil {
		return nil, err
	}
	return &identity.MembershipView{Workspace: *ws, Role: m.Role}, nil
}

// UpdateWorkspace edits a workspace; it needs the admin role.
func (s *Service) UpdateWorkspace(ctx context.Context, p identity.Principal, id int64, in WorkspaceInput) (*identity.MembershipView, error) {
	m, err := s.manage(ctx, p, id, identity.RoleAdmin)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspaces.UpdateWorkspace(ctx, id, in.apply)
	if err != nil {
		return nil, err
	}
	return &identity.MembershipView{Workspace: *ws, Role: m.Role}, nil
}

// manage authorizes a change to a workspace or its members: the token needs
// the workspace scope and the caller at least role min.
func (s *Service) manage(ctx context.Context, p identity.Principal, id int64, min identity.Role) (*identity.Member, error) {
	if err := p.RequireScope(identity.ScopeWorkspace); err != nil {
		return nil, err
	}
	return s.Authorize(ctx, p, id, min)
}

// DeleteWorkspace deletes a team workspace; it needs the owner role. A
// personal workspace cannot be deleted.
func (s *Service) DeleteWorkspace(ctx context.Context, p identity.Principal, id int64) error {
	if _, err := s.manage(ctx, p, id, identity.RoleOwner); err != nil {
		return err
	}
	ws, err := s.workspaces.GetWorkspace(ctx, id)
	if err != nil {
		return err
	}
	if ws.Kind == identity.WorkspacePersonal {
		return errs.Conflict("workspace %d is a personal workspace and cannot be deleted", id)
	}
	return s.workspaces.DeleteWorkspace(ctx, id)
}
