package tables

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Admin serves GET /api/admin/tables.
type Admin struct {
	Svc *tableapp.Service
}

// List answers GET /api/admin/tables?workspace_id&page_num&page_size: the
// tables of every workspace (or one) with their rows and bytes.
func (h Admin) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", false)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 50, 200)
	if err != nil {
		return err
	}
	ts, total, err := h.Svc.AdminList(ctx, httpx.Caller(c), ws, page)
	if err != nil {
		return err
	}
	out := make([]SizedDTO, len(ts))
	for i, t := range ts {
		out[i] = newSizedDTO(t)
	}
	httpx.OK(c, httpx.List[SizedDTO]{Items: out, Total: total})
	return nil
}
