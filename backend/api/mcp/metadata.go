package mcp

import (
	"context"
	"net/http"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/route"
)

// Where the OAuth 2.0 protected resource metadata (RFC 9728) of /mcp is
// served: at the well-known path with the resource's path appended, as
// the RFC derives it from the resource URL, and at the bare well-known
// path, which MCP clients try next.
const (
	MetadataPath      = "/.well-known/oauth-protected-resource"
	MetadataPathOfMCP = MetadataPath + Path
)

// tokenInstructions tell a client, and the person behind it, how to get
// the token /mcp wants: Pergola issues personal access tokens, not OAuth
// tokens, so there is no authorization server to send them to.
const tokenInstructions = "Pergola has no OAuth authorization server: create a personal access token " +
	"(POST /api/tokens with a console session, or in the console's token settings) and configure your MCP client " +
	"to send it as Authorization: Bearer <token>. Scopes: chat and bot for bots' tools, workflow for workflows', or all."

// metadata is the protected resource metadata of /mcp. Its fields are
// RFC 9728's; authorization_servers is left out, honestly, since no
// authorization server issues Pergola's tokens, and the instructions say
// how to get one instead.
type metadata struct {
	Resource               string   `json:"resource"`
	ResourceName           string   `json:"resource_name"`
	ResourceDocumentation  string   `json:"resource_documentation"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported"`
	TokenInstructions      string   `json:"pergola_token_instructions"`
}

// registerMetadata installs the metadata routes: public, as RFC 9728
// wants, and open to any origin (browser-based clients such as MCP
// Inspector fetch it).
func registerMetadata(e *route.Engine, publicURL string) {
	serve := func(ctx context.Context, c *app.RequestContext) {
		base := baseURL(c, publicURL)
		c.Header("Access-Control-Allow-Origin", "*")
		c.Header("Cache-Control", "public, max-age=300")
		c.JSON(http.StatusOK, metadata{
			Resource: base + Path, ResourceName: "Pergola MCP server",
			ResourceDocumentation:  base + "/openapi.yaml#/paths/~1api~1tokens/post",
			BearerMethodsSupported: []string{"header"}, ScopesSupported: []string{"chat", "bot", "workflow", "all"},
			TokenInstructions: tokenInstructions,
		})
	}
	e.GET(MetadataPath, serve)
	e.GET(MetadataPathOfMCP, serve)
}

// baseURL is the configured public URL, or the scheme and host the
// request came to.
func baseURL(c *app.RequestContext, publicURL string) string {
	if publicURL != "" {
		return strings.TrimRight(publicURL, "/")
	}
	scheme := string(c.URI().Scheme())
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + string(c.Host())
}
