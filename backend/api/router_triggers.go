package api

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/triggers"
	"github.com/pergola-ai/pergola/domain/errs"
)

// registerTriggers installs the builders' trigger routes on console
// (/api), and the webhook route, which the trigger's secret authenticates
// rather than a token. Without the trigger service (Deps.Triggers nil) they answer 503.
func registerTriggers(e *route.Engine, console *route.RouterGroup, d Deps) {
	h := triggers.Console{Svc: d.Triggers}
	handle := func(f httpx.Handler) app.HandlerFunc {
		if d.Triggers == nil {
			return httpx.Handle(func(context.Context, *app.RequestContext) error {
				return errs.New(errs.ErrUnavailable, "triggers are not available in this process")
			})
		}
		return httpx.Handle(f)
	}
	console.GET("/triggers", handle(h.List))
	console.POST("/triggers", handle(h.Create))
	console.GET("/triggers/:id", handle(h.Get))
	console.PATCH("/triggers/:id", handle(h.Update))
	console.DELETE("/triggers/:id", handle(h.Delete))
	console.POST("/triggers/:id/pause", handle(h.Pause))
	console.POST("/triggers/:id/resume", handle(h.Resume))
	e.POST("/v1/triggers/:id/webhook", handle(triggers.Webhook{Svc: d.Triggers}.Call))
}
