package plugins

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Delete answers DELETE /api/admin/plugins/:id: any workspace's plugin is
// removed, and the deletion is written to the audit log.
func (h Admin) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Svc.AdminDelete(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
