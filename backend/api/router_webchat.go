package api

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/webchat"
)

// registerWebChat installs the hosted web chat: its page, its scripts
// and the API the widget calls, outside the authenticated groups (the
// end user's token is the credential) and with each channel's own CORS
// rules.
func registerWebChat(e *route.Engine, d Deps) {
	h := webchat.Handlers{Svc: d.WebChat, Assets: webchat.LoadAssets(), Proxies: d.Proxies}
	e.GET("/embed.js", h.EmbedJS)
	e.GET("/chat/assets/widget.js", h.WidgetJS)
	e.GET("/chat/assets/favicon.svg", h.Favicon)
	e.GET("/chat/:channel_id", h.Page)
	e.GET("/chat/:channel_id/config", webchat.Handle(h.Config))
	e.POST("/chat/:channel_id/session", webchat.Handle(h.Session))
	e.GET("/chat/:channel_id/messages", webchat.Handle(h.History))
	e.POST("/chat/:channel_id/messages", webchat.Handle(h.Send))
	e.POST("/chat/:channel_id/reset", webchat.Handle(h.Reset))
	for _, p := range []string{"config", "session", "messages", "reset"} {
		e.OPTIONS("/chat/:channel_id/"+p, webchat.Handle(h.Preflight))
	}
}

// unlessWebChat runs mw on every route but the web chat's, which answer
// CORS per channel themselves.
func unlessWebChat(mw app.HandlerFunc) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		if webchat.IsPublic(string(c.Path())) {
			c.Next(ctx)
			return
		}
		mw(ctx, c)
	}
}
