package tables

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/table"
)

// Console serves the builders' table routes under /api/tables.
type Console struct {
	Svc *tableapp.Service
}

// List answers GET /api/tables?workspace_id&page_num&page_size.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	ts, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, page)
	if err != nil {
		return err
	}
	out := make([]TableDTO, len(ts))
	for i := range ts {
		out[i] = newTableDTO(&ts[i])
	}
	httpx.OK(c, httpx.List[TableDTO]{Items: out, Total: total})
	return nil
}

// Create answers POST /api/tables with 201 and the new table.
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		WorkspaceID httpx.ID   `json:"workspace_id"`
		Name        string     `json:"name"`
		Description string     `json:"description"`
		Mode        string     `json:"mode"`
		Fields      []FieldDTO `json:"fields"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	t, err := h.Svc.Create(ctx, httpx.Caller(c), int64(req.WorkspaceID), tableapp.Input{
		Name: req.Name, Description: req.Description, Mode: table.Mode(req.Mode), Fields: fieldSpecs(req.Fields)})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newTableDTO(t)})
	return nil
}

// Get answers GET /api/tables/:id.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	t, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newTableDTO(t))
	return nil
}

// Update answers PATCH /api/tables/:id: the fields present change.
func (h Console) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Name        *string    `json:"name"`
		Description *string    `json:"description"`
		Mode        *string    `json:"mode"`
		Fields      []FieldDTO `json:"fields"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	patch := tableapp.Patch{Name: req.Name, Description: req.Description, Fields: fieldSpecs(req.Fields)}
	if req.Mode != nil {
		m := table.Mode(*req.Mode)
		patch.Mode = &m
	}
	t, err := h.Svc.Update(ctx, httpx.Caller(c), id, patch)
	if err != nil {
		return err
	}
	httpx.OK(c, newTableDTO(t))
	return nil
}

// Delete answers DELETE /api/tables/:id.
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

// SQL answers POST /api/tables/:id/sql {sql, data?, user_id?}: the
// statement runs as the bot's SQL tool would run it for that end user.
func (h Console) SQL(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		SQL    string `json:"sql"`
		Data   string `json:"data"`
		UserID string `json:"user_id"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	d, err := table.ParseData("data", req.Data)
	if err != nil {
		return err
	}
	res, err := h.Svc.RunSQL(ctx, httpx.Caller(c), id, table.Scope{Data: d, UserID: req.UserID}, req.SQL)
	if err != nil {
		return err
	}
	httpx.OK(c, newResultDTO(res))
	return nil
}
