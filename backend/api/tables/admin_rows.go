package tables

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/table"
)

// Rows answers GET /api/admin/tables/:id/rows?data&filter&order&page_num&page_size
// as GET /api/tables/:id/rows does, for any workspace's table; the read
// is audited.
func (h Admin) Rows(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	q, err := rowsQuery(c)
	if err != nil {
		return err
	}
	_, rows, total, err := h.Svc.AdminListRows(ctx, httpx.Caller(c), id, q)
	if err != nil {
		return err
	}
	out := make([]RowDTO, len(rows))
	for i, r := range rows {
		out[i] = newRowDTO(r)
	}
	httpx.OK(c, httpx.List[RowDTO]{Items: out, Total: total})
	return nil
}

// AddRows answers POST /api/admin/tables/:id/rows {data?, rows:[{user_id?,
// values}]} as POST /api/tables/:id/rows does, for any workspace's table,
// with 201 and the new ids; the insertion is audited.
func (h Admin) AddRows(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Data string  `json:"data"`
		Rows []rowIn `json:"rows"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	d, err := table.ParseData("data", req.Data)
	if err != nil {
		return err
	}
	in := make([]tableapp.NewRow, len(req.Rows))
	for i, r := range req.Rows {
		in[i] = tableapp.NewRow{UserID: r.UserID, Values: r.Values}
	}
	ids, err := h.Svc.AdminInsertRows(ctx, httpx.Caller(c), id, d, in)
	if err != nil {
		return err
	}
	out := make([]httpx.ID, len(ids))
	for i, v := range ids {
		out[i] = httpx.ID(v)
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: map[string]any{"ids": out}})
	return nil
}

// UpdateRow answers PATCH /api/admin/tables/:id/rows/:row_id {data?,
// values, user_id?} as PATCH /api/tables/:id/rows/:row_id does, for any
// workspace's table; the change is audited.
func (h Admin) UpdateRow(ctx context.Context, c *app.RequestContext) error {
	id, rowID, err := rowPath(c)
	if err != nil {
		return err
	}
	var req struct {
		Data   string         `json:"data"`
		Values map[string]any `json:"values"`
		UserID *string        `json:"user_id"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	d, err := table.ParseData("data", req.Data)
	if err != nil {
		return err
	}
	if err := h.Svc.AdminUpdateRow(ctx, httpx.Caller(c), id, d, rowID, req.Values, req.UserID); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// DeleteRow answers DELETE /api/admin/tables/:id/rows/:row_id?data for any
// workspace's table; the deletion is audited.
func (h Admin) DeleteRow(ctx context.Context, c *app.RequestContext) error {
	id, rowID, err := rowPath(c)
	if err != nil {
		return err
	}
	d, err := data(c)
	if err != nil {
		return err
	}
	if err := h.Svc.AdminDeleteRow(ctx, httpx.Caller(c), id, d, rowID); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
