package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/plugins"
)

// registerPlugins installs the plugin routes: the builders' resource
// routes on console (/api) and the administrators' view and switches on
// admin (/api/admin). Plugins have no Coze-compatible routes.
func registerPlugins(_, console, admin *route.RouterGroup, d Deps) {
	cs := plugins.Console{Svc: d.Plugins}
	console.POST("/plugins", httpx.Handle(cs.Create))
	console.GET("/plugins", httpx.Handle(cs.List))
	console.GET("/plugins/:id", httpx.Handle(cs.Get))
	console.PATCH("/plugins/:id", httpx.Handle(cs.Update))
	console.DELETE("/plugins/:id", httpx.Handle(cs.Delete))
	console.POST("/plugins/:id/publish", httpx.Handle(cs.Publish))
	console.GET("/plugins/:id/versions", httpx.Handle(cs.Versions))
	console.GET("/plugins/:id/versions/:version", httpx.Handle(cs.Version))
	console.POST("/plugins/:id/refresh", httpx.Handle(cs.Refresh))
	console.POST("/plugins/:id/tools/:tool/debug", httpx.Handle(cs.Debug))

	ad := plugins.Admin{Svc: d.Plugins}
	admin.GET("/plugins", httpx.Handle(ad.List))
	admin.GET("/plugins/:id", httpx.Handle(ad.Get))
	admin.PATCH("/plugins/:id", httpx.Handle(ad.SetEnabled))
	admin.DELETE("/plugins/:id", httpx.Handle(ad.Delete))
	admin.PATCH("/plugins/:id/tools/:tool", httpx.Handle(ad.SetToolEnabled))
}
