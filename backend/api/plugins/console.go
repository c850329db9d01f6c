package plugins

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// Console serves the builders' plugin routes under /api/plugins.
type Console struct {
	Svc *pluginapp.Service
}

// Create answers POST /api/plugins with 201 and the plugin, its tools and
// the document's warnings.
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	var req createRequest
	if err := bindStrict(c, &req, true); err != nil {
		return err
	}
	ws, err := httpx.ParseID("workspace_id", string(req.WorkspaceID))
	if err != nil {
		return err
	}
	in := pluginapp.Input{Kind: plugin.Kind(req.Kind), Name: req.Name, Description: req.Description,
		OpenAPI: req.OpenAPI.text, ServerURL: req.ServerURL, Transport: req.Transport,
		Command: req.Command, Args: req.Args, Env: req.Env}
	if req.Auth != nil {
		in.Auth = req.Auth.toDomain()
	}
	pl, warnings, err := h.Svc.Create(ctx, httpx.Caller(c), ws, in)
	if err != nil {
		return err
	}
	d := newPluginDTO(pl, true)
	d.Warnings = warnings
	c.JSON(http.StatusCreated, httpx.Envelope{Data: d})
	return nil
}

// List answers GET /api/plugins?workspace_id&scope&page_num&page_size:
// the catalog's plugins, then the workspace's own.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	scope, err := listScope(string(c.Query("scope")))
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	list, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, scope, page)
	if err != nil {
		return err
	}
	out := make([]PluginDTO, len(list))
	for i := range list {
		out[i] = newPluginDTO(&list[i], false)
	}
	httpx.OK(c, httpx.List[PluginDTO]{Items: out, Total: total})
	return nil
}

func listScope(s string) (pluginapp.Scope, error) {
	switch s {
	case "", "all":
		return pluginapp.AllScopes, nil
	case "workspace":
		return pluginapp.Workspace, nil
	case "catalog":
		return pluginapp.Catalog, nil
	}
	return 0, errs.Invalid("scope", "must be all, workspace or catalog; got %q", s)
}

// Get answers GET /api/plugins/:id with the draft, its tools' schemas and
// the document.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	pl, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newPluginDTO(pl, true))
	return nil
}

// Update answers PATCH /api/plugins/:id.
func (h Console) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req patchRequest
	if err := bindStrict(c, &req, true); err != nil {
		return err
	}
	patch := pluginapp.Patch{Name: req.Name, Description: req.Description, ServerURL: req.ServerURL, Transport: req.Transport,
		Command: req.Command, Args: req.Args, Env: req.Env}
	if req.OpenAPI.set {
		patch.OpenAPI = &req.OpenAPI.text
	}
	if req.Auth != nil {
		a := req.Auth.toDomain()
		patch.Auth = &a
	}
	pl, warnings, err := h.Svc.Update(ctx, httpx.Caller(c), id, patch)
	if err != nil {
		return err
	}
	d := newPluginDTO(pl, true)
	d.Warnings = warnings
	httpx.OK(c, d)
	return nil
}

// Delete answers DELETE /api/plugins/:id; ?force=true deletes a plugin
// published bots use.
func (h Console) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	force, err := httpx.QueryBool(c, "force")
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), id, force); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Refresh answers POST /api/plugins/:id/refresh: an MCP plugin's tools
// are discovered again.
func (h Console) Refresh(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	pl, err := h.Svc.Refresh(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newPluginDTO(pl, true))
	return nil
}
