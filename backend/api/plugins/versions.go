package plugins

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// Publish answers POST /api/plugins/:id/publish with 201 and the new
// version.
func (h Console) Publish(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	v, err := h.Svc.Publish(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	pl, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newVersionDTO(pl, v, false)})
	return nil
}

// Versions answers GET /api/plugins/:id/versions, newest first.
func (h Console) Versions(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	pl, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	vs, err := h.Svc.ListVersions(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	out := make([]VersionDTO, len(vs))
	for i := range vs {
		out[i] = newVersionDTO(pl, &vs[i], false)
	}
	httpx.OK(c, httpx.List[VersionDTO]{Items: out, Total: int64(len(out))})
	return nil
}

// Version answers GET /api/plugins/:id/versions/:version with the tools'
// schemas and the document.
func (h Console) Version(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	number, err := httpx.PathID(c, "version")
	if err != nil {
		return err
	}
	pl, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	v, err := h.Svc.GetVersion(ctx, httpx.Caller(c), id, number)
	if err != nil {
		return err
	}
	httpx.OK(c, newVersionDTO(pl, v, true))
	return nil
}

// Debug answers POST /api/plugins/:id/tools/:tool/debug {args, version}
// with the request sent (secrets masked), the answer, the result the
// model would read and the timing. A call that fails is still 200, with
// ok false and the error.
func (h Console) Debug(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req debugRequest
	if err := bindStrict(c, &req, false); err != nil {
		return err
	}
	version, err := plugin.ParseVersion("version", req.Version)
	if err != nil {
		return err
	}
	args, err := req.argsText()
	if err != nil {
		return err
	}
	run, err := h.Svc.Debug(ctx, httpx.Caller(c), id, c.Param("tool"), args, version)
	if err != nil {
		return err
	}
	httpx.OK(c, newDebugDTO(run))
	return nil
}
