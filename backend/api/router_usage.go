package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/usage"
)

// registerUsage installs GET /api/usage; without a usage service it
// answers 503.
func registerUsage(console *route.RouterGroup, d Deps) {
	console.GET("/usage", httpx.Handle(usage.Handlers{Svc: d.Usage}.Get))
}
