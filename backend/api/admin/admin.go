// Package admin holds the handlers of the admin API (/api/admin), which
// only platform administrators may call.
package admin

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/api/console"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// RequireAdmin is the middleware guarding the admin API.
func RequireAdmin() app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		if err := identityapp.RequireAdmin(httpx.Caller(c)); err != nil {
			httpx.Fail(ctx, c, err)
			c.Abort()
			return
		}
		c.Next(ctx)
	}
}

// Users manages users and lists workspaces across the platform.
type Users struct {
	Svc *identityapp.Service
}

// List answers GET /api/admin/users.
func (h Users) List(ctx context.Context, c *app.RequestContext) error {
	page, err := httpx.Paging(c, 50, 200)
	if err != nil {
		return err
	}
	us, total, err := h.Svc.ListUsers(ctx, page)
	if err != nil {
		return err
	}
	out := make([]console.UserDTO, len(us))
	for i, u := range us {
		out[i] = console.NewUserDTO(u)
	}
	httpx.OK(c, httpx.List[console.UserDTO]{Items: out, Total: total})
	return nil
}

// Create answers POST /api/admin/users; the user gets a personal workspace.
func (h Users) Create(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		Email    string `json:"email"`
		Name     string `json:"name"`
		Password string `json:"password"`
		IsAdmin  bool   `json:"is_admin"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	u, ws, err := h.Svc.CreateUser(ctx, identityapp.UserInput{Email: req.Email, Name: req.Name, Password: req.Password, IsAdmin: req.IsAdmin})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: map[string]any{
		"user": console.NewUserDTO(*u), "workspace": console.NewWorkspaceDTO(*ws, "owner"),
	}})
	return nil
}

// Get answers GET /api/admin/users/:id.
func (h Users) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	u, err := h.Svc.GetUser(ctx, id)
	if err != nil {
		return err
	}
	httpx.OK(c, console.NewUserDTO(*u))
	return nil
}

// Update answers PATCH /api/admin/users/:id.
func (h Users) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Name     *string `json:"name"`
		Password *string `json:"password"`
		IsAdmin  *bool   `json:"is_admin"`
		Disabled *bool   `json:"disabled"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	u, err := h.Svc.UpdateUser(ctx, id, identityapp.UserPatch{Name: req.Name, Password: req.Password, IsAdmin: req.IsAdmin, Disabled: req.Disabled})
	if err != nil {
		return err
	}
	httpx.OK(c, console.NewUserDTO(*u))
	return nil
}

// Workspaces answers GET /api/admin/workspaces.
func (h Users) Workspaces(ctx context.Context, c *app.RequestContext) error {
	page, err := httpx.Paging(c, 50, 200)
	if err != nil {
		return err
	}
	ws, total, err := h.Svc.ListAllWorkspaces(ctx, page)
	if err != nil {
		return err
	}
	out := make([]console.WorkspaceDTO, len(ws))
	for i, w := range ws {
		out[i] = console.NewWorkspaceDTO(w, "")
	}
	httpx.OK(c, httpx.List[console.WorkspaceDTO]{Items: out, Total: total})
	return nil
}
