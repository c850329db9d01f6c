package tables

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// Rows answers GET /api/tables/:id/rows?data&filter&order&page_num&page_size.
// Each filter is column:op or column:op:value, e.g. title:contains:milk
// or due:null.
func (h Console) Rows(ctx context.Context, c *app.RequestContext) error {
	return listRows(ctx, c, h.Svc.ListRows)
}

// The row use cases a handler calls: the builders' own, or the
// administrators' (any workspace, audited).
type (
	listFunc   func(context.Context, identity.Principal, int64, tableapp.RowsQuery) (*table.Table, []table.Row, int64, error)
	insertFunc func(context.Context, identity.Principal, int64, table.Data, []tableapp.NewRow) ([]int64, error)
	updateFunc func(context.Context, identity.Principal, int64, table.Data, int64, map[string]any, *string) error
	deleteFunc func(context.Context, identity.Principal, int64, table.Data, int64) error
)

// listRows answers a rows list with {items, total} through list.
func listRows(ctx context.Context, c *app.RequestContext, list listFunc) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	q, err := rowsQuery(c)
	if err != nil {
		return err
	}
	_, rows, total, err := list(ctx, httpx.Caller(c), id, q)
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

// filters reads the repeated filter query parameter.
func filters(c *app.RequestContext) ([]table.Filter, error) {
	var out []table.Filter
	for i, raw := range c.QueryArgs().PeekAll("filter") {
		parts := strings.SplitN(string(raw), ":", 3)
		if len(parts) < 2 {
			return nil, errs.Invalid("filter["+strconv.Itoa(i)+"]", "must be column:op or column:op:value, e.g. title:contains:milk; got %q", raw)
		}
		f := table.Filter{Field: parts[0], Op: table.Op(parts[1])}
		if len(parts) == 3 {
			f.Value = parts[2]
		}
		out = append(out, f)
	}
	return out, nil
}

// rowIn is a row in a request.
type rowIn struct {
	UserID string         `json:"user_id"`
	Values map[string]any `json:"values"`
}

// AddRows answers POST /api/tables/:id/rows {data?, rows:[{user_id?,
// values}]} with 201 and the new ids.
func (h Console) AddRows(ctx context.Context, c *app.RequestContext) error {
	return addRows(ctx, c, h.Svc.InsertRows)
}

// addRows answers POST …/rows {data?, rows} with 201 and the new ids,
// inserting through insert.
func addRows(ctx context.Context, c *app.RequestContext, insert insertFunc) error {
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
	ids, err := insert(ctx, httpx.Caller(c), id, d, in)
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

// UpdateRow answers PATCH /api/tables/:id/rows/:row_id {data?, values,
// user_id?}: the values given change; user_id, when present, moves the
// row to that end user.
func (h Console) UpdateRow(ctx context.Context, c *app.RequestContext) error {
	return updateRow(ctx, c, h.Svc.UpdateRow)
}

// updateRow answers PATCH …/rows/:row_id {data?, values, user_id?}
// through update.
func updateRow(ctx context.Context, c *app.RequestContext, update updateFunc) error {
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
	if err := update(ctx, httpx.Caller(c), id, d, rowID, req.Values, req.UserID); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// DeleteRow answers DELETE /api/tables/:id/rows/:row_id?data.
func (h Console) DeleteRow(ctx context.Context, c *app.RequestContext) error {
	return deleteRow(ctx, c, h.Svc.DeleteRow)
}

// deleteRow answers DELETE …/rows/:row_id?data through del.
func deleteRow(ctx context.Context, c *app.RequestContext, del deleteFunc) error {
	id, rowID, err := rowPath(c)
	if err != nil {
		return err
	}
	d, err := data(c)
	if err != nil {
		return err
	}
	if err := del(ctx, httpx.Caller(c), id, d, rowID); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

func rowPath(c *app.RequestContext) (int64, int64, error) {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return 0, 0, err
	}
	rowID, err := httpx.PathID(c, "row_id")
	return id, rowID, err
}

// rowsQuery reads the data, page, order and filters of a rows list.
func rowsQuery(c *app.RequestContext) (tableapp.RowsQuery, error) {
	q := tableapp.RowsQuery{}
	var err error
	if q.Data, err = data(c); err != nil {
		return q, err
	}
	if q.Page, err = httpx.Paging(c, 50, 500); err != nil {
		return q, err
	}
	switch o := string(c.Query("order")); o {
	case "", "asc":
	case "desc":
		q.Desc = true
	default:
		return q, errs.Invalid("order", "must be asc or desc, got %q", o)
	}
	q.Filters, err = filters(c)
	return q, err
}
