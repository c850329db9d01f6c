package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/traces"
)

// registerTraces installs GET /api/traces/{id}; without a trace service it
// answers 503.
func registerTraces(console *route.RouterGroup, d Deps) {
	console.GET("/traces/:id", httpx.Handle(traces.Handlers{Svc: d.Traces}.Get))
}
