package webchat

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// IsPublic reports whether a path belongs to the web chat, whose routes
// apply their own CORS rules per channel instead of the server-wide ones
// (PERGOLA_CORS_ORIGINS).
func IsPublic(path string) bool {
	return path == "/embed.js" || strings.HasPrefix(path, "/chat/")
}

// allowOrigin lets a browser page call the channel's API: pages of the
// server itself (the hosted page), and of the channel's allowed_origins.
// Requests without Origin (not from a browser, or same-origin GETs) pass:
// the end user's token is their credential, and CORS only decides what a
// page of another site may read. A page of another origin is refused
// with 403, without the CORS headers, so its browser shows it nothing.
func allowOrigin(c *app.RequestContext, ch *channel.Channel) error {
	c.Header("Vary", "Origin")
	origin := string(c.GetHeader("Origin"))
	if origin == "" {
		return nil
	}
	if !sameHost(origin, string(c.Host())) && !ch.Web().AllowsOrigin(origin) {
		return errs.Forbidden("pages of %s may not use web chat %d: add the origin to the channel's allowed_origins", origin, ch.ID)
	}
	c.Header("Access-Control-Allow-Origin", origin)
	c.Header("Access-Control-Expose-Headers", middleware.LogIDHeader+", Retry-After")
	return nil
}

// sameHost reports whether origin names the host the request was sent
// to: the hosted page calling its own server (behind a TLS proxy the
// scheme may differ, the host does not).
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && host != "" && strings.EqualFold(u.Host, host)
}

// Preflight answers the browser's OPTIONS before a cross-origin call of
// the API: 204 with what may be sent for an allowed origin, 403 without
// CORS headers otherwise (and 404 for an unknown chat).
func (h Handlers) Preflight(ctx context.Context, c *app.RequestContext) error {
	if _, err := h.channel(ctx, c); err != nil {
		return err
	}
	if len(c.Response.Header.Peek("Access-Control-Allow-Origin")) > 0 {
		c.Header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		c.Header("Access-Control-Allow-Headers", "Authorization, Content-Type")
		c.Header("Access-Control-Max-Age", strconv.Itoa(600))
	}
	c.SetStatusCode(http.StatusNoContent)
	return nil
}
