package bots

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Console serves the builders' bot routes under /api/bots.
type Console struct {
	Svc *botapp.Service
}

// consoleStatus reads the status filter of GET /api/bots.
func consoleStatus(c *app.RequestContext) (botapp.Publication, error) {
	switch s := string(c.Query("status")); s {
	case "", "all":
		return botapp.AnyPublication, nil
	case "published":
		return botapp.Published, nil
	case "unpublished":
		return botapp.Unpublished, nil
	default:
		return 0, errs.Invalid("status", "must be all, published or unpublished; got %q", s)
	}
}

// List answers GET /api/bots?workspace_id&status&page_num&page_size.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	which, err := consoleStatus(c)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	bots, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, which, page)
	if err != nil {
		return err
	}
	out := make([]BotSummaryDTO, len(bots))
	for i := range bots {
		out[i] = newBotSummaryDTO(&bots[i])
	}
	httpx.OK(c, httpx.List[BotSummaryDTO]{Items: out, Total: total})
	return nil
}

// Create answers POST /api/bots with 201 and the new bot.
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	// The body is the configuration with the workspace beside its fields.
	var target struct {
		WorkspaceID idText `json:"workspace_id"`
	}
	var req ConfigDTO
	if err := bindStrict(c, &req, "workspace_id"); err != nil {
		return err
	}
	if err := httpx.BindJSON(c, &target); err != nil {
		return err
	}
	ws, err := target.WorkspaceID.parse("workspace_id", true)
	if err != nil {
		return err
	}
	cfg, err := req.toDomain()
	if err != nil {
		return err
	}
	b, err := h.Svc.Create(ctx, httpx.Caller(c), ws, cfg)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newBotDTO(b)})
	return nil
}

// Get answers GET /api/bots/:id with the bot and its draft.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	b, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newBotDTO(b))
	return nil
}

// Replace answers PUT /api/bots/:id: the body replaces the whole draft.
func (h Console) Replace(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req ConfigDTO
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	cfg, err := req.toDomain()
	if err != nil {
		return err
	}
	b, err := h.Svc.Update(ctx, httpx.Caller(c), id, func(draft *bot.Config) error { *draft = cfg; return nil })
	if err != nil {
		return err
	}
	httpx.OK(c, newBotDTO(b))
	return nil
}

// Delete answers DELETE /api/bots/:id.
func (h Console) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Publish answers POST /api/bots/:id/publish {connector_ids?} with 201
// and the new version.
func (h Console) Publish(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		ConnectorIDs []string `json:"connector_ids"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	v, err := h.Svc.Publish(ctx, httpx.Caller(c), id, req.ConnectorIDs)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newVersionDTO(v, true)})
	return nil
}

// Versions answers GET /api/bots/:id/versions, newest first.
func (h Console) Versions(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	vs, err := h.Svc.ListVersions(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	out := make([]VersionDTO, len(vs))
	for i := range vs {
		out[i] = newVersionDTO(&vs[i], false)
	}
	httpx.OK(c, httpx.List[VersionDTO]{Items: out, Total: int64(len(out))})
	return nil
}

// Version answers GET /api/bots/:id/versions/:version.
func (h Console) Version(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	number, err := httpx.PathID(c, "version")
	if err != nil {
		return err
	}
	v, err := h.Svc.GetVersion(ctx, httpx.Caller(c), id, number)
	if err != nil {
		return err
	}
	httpx.OK(c, newVersionDTO(v, true))
	return nil
}
