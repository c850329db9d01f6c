// Package mcp serves Pergola's MCP server at /mcp over the streamable HTTP
// transport of the MCP Go SDK, behind the same authentication, rate limit,
// body limit and metrics as the rest of the API. The tools are
// application/mcpserver's, listed and called per request with the
// caller's rights.
package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/common/adaptor"
	"github.com/cloudwego/hertz/pkg/route"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/application/mcpserver"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Path is where the MCP server answers.
const Path = "/mcp"

// sessionIdle closes MCP sessions a client stopped using without
// deleting them, so abandoned sessions do not pile up.
const sessionIdle = 30 * time.Minute

// Deps is what the MCP surface needs.
type Deps struct {
	Tools *mcpserver.Service
	Log   *slog.Logger
	// Auth authenticates the caller (and sets it with httpx.SetPrincipal);
	// RateLimit then bounds its requests.
	Auth         app.HandlerFunc
	Scopes       app.HandlerFunc // the route table's scope check; nil: none
	RateLimit    app.HandlerFunc
	MaxBodyBytes int
	// Changes, when set, tells open sessions when their lists change.
	Changes Changes
	// Sessions, when set (Redis), lets every process serve the requests
	// of a session another process opened; nil: a session is served only
	// by the process that opened it.
	Sessions SessionStore
	// Bus, with Sessions, carries cancellations, answers to questions and
	// ended sessions between the processes; nil: a process hears only the
	// requests it serves.
	Bus Bus
	// Life ends when the process stops; the notifier and the bus's
	// listener stop with it. nil: they run for the process's life.
	Life context.Context
	// PublicURL is the base URL clients reach the server at, for the
	// resource metadata; empty: each request's own scheme and host.
	PublicURL string
}

// Register installs POST, GET and DELETE /mcp on e (without tools they
// answer 503) and the resource metadata that says how to authenticate.
func Register(e *route.Engine, d Deps) {
	registerMetadata(e, d.PublicURL)
	h := unavailable
	if d.Tools != nil {
		h = handler(d)
	}
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		e.Handle(m, Path, challenge(d.PublicURL), d.Auth, accepted(), scopesOf(d), d.RateLimit, h)
	}
}

// handler adapts the SDK's streamable HTTP handler to hertz and hands it
// the caller.
func handler(d Deps) app.HandlerFunc {
	var n *notifier
	if d.Changes != nil {
		n = newNotifier(d.Tools, d.Log)
		n.watch(lifeOf(d), d.Changes)
	}
	var ss *sessions
	if d.Sessions != nil {
		ss = newSessions(d.Sessions, n, d.Bus, int64(max(d.MaxBodyBytes, 0)), d.Log)
	}
	streamable := newBounds(newStreamable(d, n, ss), int64(max(d.MaxBodyBytes, 0)), endSession(ss))
	// The SDK binds each session to TokenInfo.UserID: a session id sent
	// with another token is refused, so a leaked id is useless alone.
	bound := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	serve := adaptor.HertzHandler(bound)
	return func(ctx context.Context, c *app.RequestContext) {
		serve(context.WithValue(ctx, principalKey{}, httpx.Caller(c)), c)
	}
}

// newStreamable returns the SDK's streamable HTTP handler; with shared
// sessions (ss not nil), wrapped so that every process serves every
// session. The SDK's servers then record what sessions list in the shared
// store, and the notifier watches the streams instead of the servers.
func newStreamable(d Deps, n *notifier, ss *sessions) http.Handler {
	version := buildVersion()
	var shared *sdk.Server
	newOwn := func() *sdk.Server { return newServer(d.Tools, d.Log, version, serverDeps{n: n}) }
	if ss != nil {
		across := serverDeps{seen: ss.seen, calls: ss.calls}
		shared = newServer(d.Tools, d.Log, version, across)
		newOwn = func() *sdk.Server { return newServer(d.Tools, d.Log, version, across) }
	} else {
		shared = newServer(d.Tools, d.Log, version, serverDeps{})
	}
	// Each session gets a server of its own, so that a list_changed
	// notification reaches only the session whose list changed; a request
	// of an existing session is served by its own server, and shared only
	// answers the SDK's question of which protocol versions are spoken.
	perSession := func(r *http.Request) *sdk.Server {
		if r.Header.Get(sessionHeader) != "" {
			return shared
		}
		srv := newOwn()
		if h, ok := r.Context().Value(holderKey{}).(*holder); ok {
			h.server = srv
		}
		return srv
	}
	limit := int64(max(d.MaxBodyBytes, 0))
	stateful := sdk.NewStreamableHTTPHandler(perSession, &sdk.StreamableHTTPOptions{
		Logger: d.Log, SessionTimeout: sessionIdle, MaxRequestBodyBytes: limit,
	})
	if ss == nil {
		return stateful
	}
	ss.stateful = stateful
	ss.stateless = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return shared },
		&sdk.StreamableHTTPOptions{Stateless: true, Logger: d.Log, MaxRequestBodyBytes: limit})
	ss.listen(lifeOf(d), d.Log)
	return ss
}

// endSession returns how a session is closed when its token holds too
// many: everywhere when sessions are shared (ss), else the SDK's session.
func endSession(ss *sessions) func(context.Context, string, *sdk.Server) {
	return func(ctx context.Context, id string, srv *sdk.Server) {
		if ss != nil {
			ss.end(ctx, id)
			return
		}
		for s := range srv.Sessions() {
			_ = s.Close()
		}
	}
}

func lifeOf(d Deps) context.Context {
	if d.Life != nil {
		return d.Life
	}
	return context.Background()
}

func unavailable(ctx context.Context, c *app.RequestContext) {
	httpx.FailWith(c, http.StatusServiceUnavailable, httpx.CodeUnavailable, "the MCP server is not available in this process")
}

type principalKey struct{}

// verify gives the SDK the caller the guards authenticated.
func verify(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	p, ok := ctx.Value(principalKey{}).(identity.Principal)
	if !ok || p.UserID == 0 {
		return nil, auth.ErrInvalidToken
	}
	info := &auth.TokenInfo{UserID: "token-" + strconv.FormatInt(p.TokenID, 10), Scopes: p.Scopes,
		Extra: map[string]any{extraPrincipal: p}}
	if p.ExpiresAt != nil {
		info.Expiration = *p.ExpiresAt
	}
	return info, nil
}

const extraPrincipal = "pergola.principal"

// principalOf returns the caller of an MCP request.
func principalOf(req sdk.Request) (identity.Principal, bool) {
	extra := req.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return identity.Principal{}, false
	}
	p, ok := extra.TokenInfo.Extra[extraPrincipal].(identity.Principal)
	return p, ok
}

// buildVersion is the module version the binary was built from, for the
// server's implementation info.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "devel"
}

// scopesOf returns the scope check of d, or one that lets every caller
// through when there is none (unit tests of this package).
func scopesOf(d Deps) app.HandlerFunc {
	if d.Scopes != nil {
		return d.Scopes
	}
	return func(ctx context.Context, c *app.RequestContext) { c.Next(ctx) }
}
