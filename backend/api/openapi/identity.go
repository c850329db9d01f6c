// Package openapi holds the handlers of the Coze-compatible API (/v1, /v3).
// Shapes follow the wire contract that Coze's SDKs decode.
package openapi

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Identity serves /v1/workspaces and /v1/users/me.
type Identity struct {
	Svc *identityapp.Service
}

type workspace struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	IconURL       string `json:"icon_url"`
	RoleType      string `json:"role_type"`
	WorkspaceType string `json:"workspace_type"`
	EnterpriseID  string `json:"enterprise_id"`
}

// ListWorkspaces answers GET /v1/workspaces (page_num, page_size).
func (h Identity) ListWorkspaces(ctx context.Context, c *app.RequestContext) error {
	page, err := httpx.Paging(c, 20, 50)
	if err != nil {
		return err
	}
	views, total, err := h.Svc.ListWorkspaces(ctx, httpx.Caller(c), page)
	if err != nil {
		return err
	}
	out := make([]workspace, len(views))
	for i, v := range views {
		out[i] = workspace{ID: strconv.FormatInt(v.Workspace.ID, 10), Name: v.Workspace.Name,
			RoleType: string(v.Role), WorkspaceType: string(v.Workspace.Kind)}
	}
	httpx.OK(c, map[string]any{"workspaces": out, "total_count": total})
	return nil
}

// Me answers GET /v1/users/me.
func (h Identity) Me(ctx context.Context, c *app.RequestContext) error {
	u, err := h.Svc.Me(ctx, httpx.Caller(c))
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]any{
		"user_id": strconv.FormatInt(u.ID, 10), "user_name": u.Email, "nick_name": u.Name, "avatar_url": "",
	})
	return nil
}
