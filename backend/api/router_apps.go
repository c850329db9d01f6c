package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/apps"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// registerApps installs the routes of apps and their variables on the
// console API (/api).
func registerApps(console *route.RouterGroup, d Deps) {
	h := apps.Console{Svc: d.Apps}
	console.GET("/apps", httpx.Handle(h.List))
	console.POST("/apps", httpx.Handle(h.Create))
	console.GET("/apps/:id", httpx.Handle(h.Get))
	console.PUT("/apps/:id", httpx.Handle(h.Update))
	console.DELETE("/apps/:id", httpx.Handle(h.Delete))
	console.GET("/apps/:id/values", httpx.Handle(h.Values))
	console.POST("/apps/:id/values/reset", httpx.Handle(h.ResetValues))
}
