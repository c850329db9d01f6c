package mcp

import (
	"context"
	"net/http"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/middleware"
)

// wwwAuthenticate is the challenge of a refused MCP request: MCP clients
// read it to learn that a bearer token is wanted, and where the protected
// resource metadata (RFC 9728) says how to get one.
func wwwAuthenticate(base string) string {
	return `Bearer realm="pergola", resource_metadata="` + base + MetadataPathOfMCP +
		`", error="invalid_token", error_description="send a personal access token as Authorization: Bearer <token>"`
}

// challenge readies the MCP surface's authentication: only a bearer token
// counts (no console cookie, so no cross-site request can ride on a
// browser's session), a request without one is refused at once, and any
// refusal by the guards that follow carries the WWW-Authenticate
// challenge the MCP specification asks for.
func challenge(publicURL string) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		c.Request.Header.DelCookie(middleware.SessionCookie)
		c.Header("WWW-Authenticate", wwwAuthenticate(baseURL(c, publicURL)))
		if !hasBearer(c) {
			httpx.FailWith(c, http.StatusUnauthorized, httpx.CodeUnauthenticated,
				"the MCP server needs a personal access token: send Authorization: Bearer <token> (create one with POST /api/tokens; "+
					MetadataPathOfMCP+" says more)")
			c.Abort()
			return
		}
		c.Next(ctx)
	}
}

// accepted drops the challenge once the guards let the request in.
func accepted() app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		c.Response.Header.Del("WWW-Authenticate")
		c.Next(ctx)
	}
}

func hasBearer(c *app.RequestContext) bool {
	h := strings.TrimSpace(string(c.GetHeader("Authorization")))
	scheme, secret, ok := strings.Cut(h, " ")
	return ok && strings.EqualFold(scheme, "bearer") && strings.TrimSpace(secret) != ""
}
