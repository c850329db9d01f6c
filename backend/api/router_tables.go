package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/tables"
)

// registerTables installs the table routes: the builders' definitions,
// rows, CSV and SQL console on console (/api), the list with sizes and
// any table's rows, audited, on admin (/api/admin). Tables have no Coze-compatible routes.
func registerTables(_, console, admin *route.RouterGroup, d Deps) {
	cs := tables.Console{Svc: d.Tables}
	console.GET("/tables", httpx.Handle(cs.List))
	console.POST("/tables", httpx.Handle(cs.Create))
	console.GET("/tables/:id", httpx.Handle(cs.Get))
	console.PATCH("/tables/:id", httpx.Handle(cs.Update))
	console.DELETE("/tables/:id", httpx.Handle(cs.Delete))
	console.GET("/tables/:id/rows", httpx.Handle(cs.Rows))
	console.POST("/tables/:id/rows", httpx.Handle(cs.AddRows))
	console.PATCH("/tables/:id/rows/:row_id", httpx.Handle(cs.UpdateRow))
	console.DELETE("/tables/:id/rows/:row_id", httpx.Handle(cs.DeleteRow))
	console.POST("/tables/:id/import", httpx.Handle(cs.Import))
	console.GET("/tables/:id/export", httpx.Handle(cs.Export))
	console.POST("/tables/:id/sql", httpx.Handle(cs.SQL))

	ad := tables.Admin{Svc: d.Tables}
	admin.GET("/tables", httpx.Handle(ad.List))
	admin.GET("/tables/:id/rows", httpx.Handle(ad.Rows))
	admin.POST("/tables/:id/rows", httpx.Handle(ad.AddRows))
	admin.PATCH("/tables/:id/rows/:row_id", httpx.Handle(ad.UpdateRow))
	admin.DELETE("/tables/:id/rows/:row_id", httpx.Handle(ad.DeleteRow))
}
