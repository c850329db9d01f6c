package tables

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"
)

// Rows answers GET /api/admin/tables/:id/rows?data&filter&order&page_num&page_size
// as GET /api/tables/:id/rows does, for any workspace's table; the read
// is audited.
func (h Admin) Rows(ctx context.Context, c *app.RequestContext) error {
	return listRows(ctx, c, h.Svc.AdminListRows)
}

// AddRows answers POST /api/admin/tables/:id/rows {data?, rows:[{user_id?,
// values}]} as POST /api/tables/:id/rows does, for any workspace's table,
// with 201 and the new ids; the insertion is audited.
func (h Admin) AddRows(ctx context.Context, c *app.RequestContext) error {
	return addRows(ctx, c, h.Svc.AdminInsertRows)
}

// UpdateRow answers PATCH /api/admin/tables/:id/rows/:row_id {data?,
// values, user_id?} as PATCH /api/tables/:id/rows/:row_id does, for any
// workspace's table; the change is audited.
func (h Admin) UpdateRow(ctx context.Context, c *app.RequestContext) error {
	return updateRow(ctx, c, h.Svc.AdminUpdateRow)
}

// DeleteRow answers DELETE /api/admin/tables/:id/rows/:row_id?data for any
// workspace's table; the deletion is audited.
func (h Admin) DeleteRow(ctx context.Context, c *app.RequestContext) error {
	return deleteRow(ctx, c, h.Svc.AdminDeleteRow)
}
