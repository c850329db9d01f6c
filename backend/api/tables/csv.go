package tables

import (
	"bytes"
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Import answers POST /api/tables/:id/import?data with the body a CSV file
// whose header names the columns. Rows with wrong values are left out and
// reported by line; the others are added.
func (h Console) Import(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	d, err := data(c)
	if err != nil {
		return err
	}
	rep, err := h.Svc.ImportCSV(ctx, httpx.Caller(c), id, d, bytes.NewReader(c.Request.Body()))
	if err != nil {
		return err
	}
	type lineError struct {
		Line    int    `json:"line"`
		Message string `json:"message"`
	}
	errors := make([]lineError, len(rep.Errors))
	for i, e := range rep.Errors {
		errors[i] = lineError{Line: e.Line, Message: e.Message}
	}
	httpx.OK(c, map[string]any{"inserted": rep.Inserted, "errors": errors})
	return nil
}

// Export answers GET /api/tables/:id/export?data with every row as CSV.
func (h Console) Export(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	d, err := data(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := h.Svc.ExportCSV(ctx, httpx.Caller(c), id, d, &buf); err != nil {
		return err
	}
	c.Header("Content-Disposition", `attachment; filename="table-`+strconv.FormatInt(id, 10)+"-"+string(d)+`.csv"`)
	c.Data(200, "text/csv; charset=utf-8", buf.Bytes())
	return nil
}
