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
	console.GET("/bots/:id/channels/:channel_id/deliveries", httpx.Handle(h.Deliveries))
}

// registerChannelRuntime installs the endpoint platforms post events to
// (no token: each kind verifies its platform's signature) and the admins'
// view of every channel.
func registerChannelRuntime(e *route.Engine, adminGroup *route.RouterGroup, d Deps) {
	a := channels.Admin{Svc: d.Channels}
	adminGroup.GET("/channels", httpx.Handle(a.List))
	adminGroup.PATCH("/channels/:channel_id", httpx.Handle(a.Update))
	e.POST("/channels/:kind/:channel_id", httpx.Handle(channels.Inbound{Runtime: d.Inbound}.Receive))
}
