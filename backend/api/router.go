// Package api assembles Pergola's HTTP surfaces on a hertz server: ops, the
// Coze-compatible OpenAPI, the console API and the admin API.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/route"
	"github.com/prometheus/client_golang/prometheus"

	appapp "github.com/pergola-ai/pergola/application/app"
	"github.com/pergola-ai/pergola/application/bot"
	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/application/conversation"
	fileapp "github.com/pergola-ai/pergola/application/file"
	"github.com/pergola-ai/pergola/application/identity"
	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/application/mcpserver"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/application/table"
	traceapp "github.com/pergola-ai/pergola/application/trace"
	triggerapp "github.com/pergola-ai/pergola/application/trigger"
	usageapp "github.com/pergola-ai/pergola/application/usage"
	webchatapp "github.com/pergola-ai/pergola/application/webchat"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/admin"
	chatapi "github.com/pergola-ai/pergola/backend/api/chat"
	"github.com/pergola-ai/pergola/backend/api/console"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	mcpapi "github.com/pergola-ai/pergola/backend/api/mcp"
	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/backend/api/openapi"
	"github.com/pergola-ai/pergola/backend/api/ops"
)

// Deps is what the HTTP surfaces need, wired by the command.
type Deps struct {
	Log          *slog.Logger
	Identity     *identity.Service
	Models       *modelreg.Registry
	Bots         *bot.Service
	Chat         *chat.Service
	Convs        *conversation.Service
	Plugins      *plugin.Service
	Tables       *table.Service
	Workflows    *workflowapp.Service
	Channels     *channelapp.Service
	Inbound      *channelapp.Runtime   // the channels' inbound events; nil: answered 503
	WebChat      *webchatapp.Service   // the hosted web chat; nil: answered 503
	MCP          *mcpserver.Service    // the MCP server's tools; nil: /mcp answered 503
	PublicURL    string                // the base URL clients reach the server at; empty: each request's own
	MCPChanges   mcpapi.Changes        // what tells open MCP sessions that their lists changed; nil: nothing
	MCPSessions  mcpapi.SessionStore   // which token opened each MCP session, for every process (Redis); nil: per process
	MCPBus       mcpapi.Bus            // with MCPSessions, carries MCP cancellations, answers and ended sessions between processes
	MCPLife      context.Context       // ends when the process stops, and the MCP server's background work with it; nil: never
	Usage        *usageapp.Service     // GET /api/usage; nil: answered 503
	Apps         *appapp.Service       // /api/apps; nil: answered 503
	Files        *fileapp.Service      // /v1/files; nil: answered 503
	Traces       *traceapp.Service     // GET /api/traces/{id}; nil: answered 503
	Knowledge    *knowledgeapp.Service // /api/knowledge; nil: answered 503
	Embeddings   chatapi.Embedder      // POST /v1/embeddings; nil: answered 503
	Triggers     *triggerapp.Service   // /api/triggers; nil: answered 503
	Limiter      middleware.Limiter
	Checks       []ops.Check
	Metrics      *prometheus.Registry
	OpenAPI      []byte
	MaxBodyBytes int
	UploadBytes  int                // the body limit of POST /v1/files/upload; 0: MaxBodyBytes
	RateLimit    int                // requests per token per minute
	AuthFailures int                // failed authentications per client address per minute; 0: off
	Proxies      middleware.Proxies // reverse proxies whose X-Forwarded-For is believed
	CORSOrigins  []string

	// DocumentBytes is the body limit of POST
	// /open_api/knowledge/document/create, whose documents arrive as
	// base64; 0: MaxBodyBytes.
	DocumentBytes int
}

// loginAttemptsPerMinute bounds password guessing per client address.
const loginAttemptsPerMinute = 20

// Register installs the middleware and every route on e.
func Register(e *route.Engine, d Deps) {
	metrics := middleware.NewMetrics(d.Metrics)
	e.Use(middleware.Recovery(d.Log), middleware.LogID(), middleware.AccessLog(d.Log), metrics.Handler(),
		unlessWebChat(middleware.CORS(d.CORSOrigins)), middleware.BodyLimitRoutes(d.MaxBodyBytes, map[string]int{uploadPath: d.UploadBytes, documentCreatePath: d.DocumentBytes}), middleware.JSONText())
	e.NoRoute(notFound)
	e.NoMethod(methodNotAllowed)

	o := ops.Handlers{Checks: d.Checks, Gatherer: d.Metrics, OpenAPI: d.OpenAPI}
	e.GET("/healthz", o.Healthz)
	e.GET("/readyz", o.Readyz)
	e.GET("/metrics", o.Metrics())
	e.GET("/openapi.yaml", o.OpenAPIDoc)

	ident := console.Identity{Svc: d.Identity}
	e.POST("/api/auth/login", perIP(d.Limiter, d.Proxies, loginAttemptsPerMinute), httpx.Handle(ident.Login))

	guard := middleware.NewFailureGuard(d.Limiter, d.AuthFailures, d.Proxies, d.Log)
	scopes := middleware.Scopes(hertzScopes())
	authed := []app.HandlerFunc{middleware.CSRF(d.CORSOrigins), middleware.Auth(d.Identity, guard), scopes, middleware.RateLimit(d.Limiter, d.RateLimit)}
	consoleGroup, cozeGroup := e.Group("/api", authed...), e.Group("", authed...)
	registerConsole(consoleGroup, d, ident)
	adminGroup := e.Group("/api/admin", append(authed, admin.RequireAdmin())...)
	registerAdmin(adminGroup, d)
	registerCoze(cozeGroup, d)
	registerPlugins(cozeGroup, consoleGroup, adminGroup, d)
	registerTables(cozeGroup, consoleGroup, adminGroup, d)
	registerWorkflows(cozeGroup, consoleGroup, adminGroup, d)
	registerWorkflowImport(cozeGroup, consoleGroup, adminGroup, d)
	registerChatflow(cozeGroup, consoleGroup, adminGroup, d)
	registerBots(cozeGroup, consoleGroup, d)
	registerConversations(cozeGroup, consoleGroup, d)
	registerChat(cozeGroup, consoleGroup, d)
	registerChannels(consoleGroup, d)
	registerChannelRuntime(e, adminGroup, d)
	registerWebChat(e, d)
	registerUsage(consoleGroup, d)
	registerApps(consoleGroup, d)
	registerFiles(cozeGroup, d)
	registerDatasets(cozeGroup, d)
	registerTraces(consoleGroup, d)
	registerKnowledge(consoleGroup, d)
	registerTriggers(e, consoleGroup, d)
	mcpapi.Register(e, mcpapi.Deps{Tools: d.MCP, Log: d.Log, Auth: middleware.Auth(d.Identity, guard), Scopes: scopes,
		RateLimit: middleware.RateLimit(d.Limiter, d.RateLimit), MaxBodyBytes: d.MaxBodyBytes, PublicURL: d.PublicURL, Changes: d.MCPChanges, Sessions: d.MCPSessions, Bus: d.MCPBus, Life: d.MCPLife})
}

func registerConsole(g *route.RouterGroup, d Deps, ident console.Identity) {
	g.POST("/auth/logout", httpx.Handle(ident.Logout))
	g.GET("/me", httpx.Handle(ident.Me))
	g.GET("/tokens", httpx.Handle(ident.ListTokens))
	g.POST("/tokens", httpx.Handle(ident.CreateToken))
	g.DELETE("/tokens/:id", httpx.Handle(ident.RevokeToken))
	g.GET("/workspaces", httpx.Handle(ident.ListWorkspaces))
	g.POST("/workspaces", httpx.Handle(ident.CreateWorkspace))
	g.GET("/workspaces/:id", httpx.Handle(ident.GetWorkspace))
	g.PATCH("/workspaces/:id", httpx.Handle(ident.UpdateWorkspace))
	g.DELETE("/workspaces/:id", httpx.Handle(ident.DeleteWorkspace))
	g.GET("/workspaces/:id/members", httpx.Handle(ident.ListMembers))
	g.POST("/workspaces/:id/members", httpx.Handle(ident.AddMember))
	g.PATCH("/workspaces/:id/members/:user_id", httpx.Handle(ident.UpdateMember))
	g.DELETE("/workspaces/:id/members/:user_id", httpx.Handle(ident.RemoveMember))
	models := console.Models{Registry: d.Models}
	g.GET("/models", httpx.Handle(models.List))
}

func registerAdmin(g *route.RouterGroup, d Deps) {
	users := admin.Users{Svc: d.Identity}
	g.GET("/users", httpx.Handle(users.List))
	g.POST("/users", httpx.Handle(users.Create))
	g.GET("/users/:id", httpx.Handle(users.Get))
	g.PATCH("/users/:id", httpx.Handle(users.Update))
	g.GET("/workspaces", httpx.Handle(users.Workspaces))
	models := admin.Models{Registry: d.Models}
	g.GET("/models", httpx.Handle(models.List))
	g.POST("/models", httpx.Handle(models.Create))
	g.GET("/models/:id", httpx.Handle(models.Get))
	g.PATCH("/models/:id", httpx.Handle(models.Update))
	g.DELETE("/models/:id", httpx.Handle(models.Delete))
	g.POST("/models/:id/test", httpx.Handle(models.Test))
}

func registerCoze(g *route.RouterGroup, d Deps) {
	ident := openapi.Identity{Svc: d.Identity}
	g.GET("/v1/workspaces", httpx.Handle(ident.ListWorkspaces))
	g.GET("/v1/users/me", httpx.Handle(ident.Me))
}

// notFound answers a path no route serves; under /v1, where OpenAI's
// clients call too (/v1/embeddings, /v1/audio/...), in OpenAI's error
// shape as OpenAI answers an unknown URL, so those clients show a message.
func notFound(ctx context.Context, c *app.RequestContext) {
	if msg := notOffered(string(c.Path())); msg != "" {
		httpx.NotSupported(c, msg)
		return
	}
	if strings.HasPrefix(string(c.Path()), "/v1/") {
		httpx.FailOpenAIWith(c, http.StatusNotFound, "Invalid URL ("+string(c.Method())+" "+string(c.Path())+
			"): Pergola does not serve this OpenAI route; see /openapi.yaml")
		return
	}
	httpx.FailWith(c, http.StatusNotFound, httpx.CodeNotFound,
		"no route for "+string(c.Method())+" "+string(c.Path())+"; see /openapi.yaml")
}

// notOffered says why a path of Coze's API that Pergola does not serve
// is not there, or returns "" for a path that is nobody's.
func notOffered(path string) string {
	switch {
	case path == "/v1/audio" || strings.HasPrefix(path, "/v1/audio/"):
		return "not supported: Pergola has no voice features (speech, transcription, voices, rooms); " + path + " is not served"
	case strings.HasPrefix(path, "/v1/templates/"):
		return "not supported: Pergola has no template store; " + path + " is not served"
	}
	return ""
}

func methodNotAllowed(ctx context.Context, c *app.RequestContext) {
	httpx.FailWith(c, http.StatusMethodNotAllowed, httpx.CodeMethodNotAllowed,
		"method "+string(c.Method())+" is not allowed on "+string(c.Path())+"; see /openapi.yaml")
}

// perIP limits unauthenticated calls, such as sign-in, per client address.
func perIP(l middleware.Limiter, proxies middleware.Proxies, perMinute int) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		ok, retry, err := l.Allow(ctx, "ratelimit:ip:"+proxies.ClientAddr(c)+":"+c.FullPath(), perMinute, time.Minute)
		if err == nil && !ok {
			c.Header("Retry-After", strconv.Itoa(max(int(retry.Seconds()+0.999), 1)))
			httpx.FailWith(c, http.StatusTooManyRequests, httpx.CodeRateLimited, "too many attempts; wait a minute")
			return
		}
		c.Next(ctx)
	}
}
