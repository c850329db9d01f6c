package console

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

type workspaceRequest struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

func (r workspaceRequest) input() identityapp.WorkspaceInput {
	return identityapp.WorkspaceInput{Name: r.Name, Description: r.Description}
}

// ListWorkspaces answers GET /api/workspaces.
func (h Identity) ListWorkspaces(ctx context.Context, c *app.RequestContext) error {
	page, err := httpx.Paging(c, 50, 100)
	if err != nil {
		return err
	}
	views, total, err := h.Svc.ListWorkspaces(ctx, httpx.Caller(c), page)
	if err != nil {
		return err
	}
	out := make([]WorkspaceDTO, len(views))
	for i, v := range views {
		out[i] = NewWorkspaceDTO(v.Workspace, v.Role)
	}
	httpx.OK(c, httpx.List[WorkspaceDTO]{Items: out, Total: total})
	return nil
}

// CreateWorkspace answers POST /api/workspaces.
func (h Identity) CreateWorkspace(ctx context.Context, c *app.RequestContext) error {
	var req workspaceRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	ws, err := h.Svc.CreateWorkspace(ctx, httpx.Caller(c), req.input())
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: NewWorkspaceDTO(*ws, identity.RoleOwner)})
	return nil
}

// GetWorkspace answers GET /api/workspaces/:id.
func (h Identity) GetWorkspace(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	v, err := h.Svc.GetWorkspace(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, NewWorkspaceDTO(v.Workspace, v.Role))
	return nil
}

// UpdateWorkspace answers PATCH /api/workspaces/:id.
func (h Identity) UpdateWorkspace(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req workspaceRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	v, err := h.Svc.UpdateWorkspace(ctx, httpx.Caller(c), id, req.input())
	if err != nil {
		return err
	}
	httpx.OK(c, NewWorkspaceDTO(v.Workspace, v.Role))
	return nil
}

// DeleteWorkspace answers DELETE /api/workspaces/:id.
func (h Identity) DeleteWorkspace(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Svc.DeleteWorkspace(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// ListMembers answers GET /api/workspaces/:id/members.
func (h Identity) ListMembers(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	ms, err := h.Svc.ListMembers(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, httpx.List[memberDTO]{Items: memberDTOs(ms), Total: int64(len(ms))})
	return nil
}

// AddMember answers POST /api/workspaces/:id/members {email, role}.
func (h Identity) AddMember(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Email string `json:"email"`
		Role  string `json:"role"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	if req.Email == "" {
		return errs.Invalid("email", "is required")
	}
	if req.Role == "" {
		req.Role = string(identity.RoleMember)
	}
	role, err := identity.ParseRole(req.Role)
	if err != nil {
		return err
	}
	m, err := h.Svc.AddMember(ctx, httpx.Caller(c), id, req.Email, role)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newMemberDTO(*m)})
	return nil
}

// UpdateMember answers PATCH /api/workspaces/:id/members/:user_id {role}.
func (h Identity) UpdateMember(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	userID, err := httpx.PathID(c, "user_id")
	if err != nil {
		return err
	}
	var req struct {
		Role string `json:"role"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	role, err := identity.ParseRole(req.Role)
	if err != nil {
		return err
	}
	if err := h.Svc.SetMemberRole(ctx, httpx.Caller(c), id, userID, role); err != nil {
		return err
	}
	httpx.OK(c, map[string]any{"user_id": httpx.ID(userID), "role": role})
	return nil
}

// RemoveMember answers DELETE /api/workspaces/:id/members/:user_id.
func (h Identity) RemoveMember(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	userID, err := httpx.PathID(c, "user_id")
	if err != nil {
		return err
	}
	if err := h.Svc.RemoveMember(ctx, httpx.Caller(c), id, userID); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
