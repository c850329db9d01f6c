package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/channels"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// registerChannels installs the routes of a bot's channels on console
// (/api).
func registerChannels(console *route.RouterGroup, d Deps) {
	h := channels.Console{Svc: d.Channels}
	console.GET("/bots/:id/channels", httpx.Handle(h.List))
	console.POST("/bots/:id/channels", httpx.Handle(h.Create))
	console.GET("/bots/:id/channels/:channel_id", httpx.Handle(h.Get))
	console.PATCH("/bots/:id/channels/:channel_id", httpx.Handle(h.Update))
	console.DELETE("/bots/:id/channels/:channel_id", httpx.Handle(h.Delete))
}
