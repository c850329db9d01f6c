package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/egress"
	"github.com/pergola-ai/pergola/infra/mcp"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/plugins"
)

// pluginParts is what the plugin feature adds to the process.
type pluginParts struct {
	svc   *pluginapp.Service
	bind  []botapp.Option      // lets bots bind plugin tools
	tools []chatapp.ToolSource // plugin tools in the agents
	// close writes the last call statistics and closes MCP sessions.
	close func()
}

// catalogSyncTimeout bounds storing the built-in plugins at start.
const catalogSyncTimeout = 30 * time.Second

// newPlugins wires the plugin use cases: every plugin call, token request
// and MCP connection goes through one guarded HTTP client, and the
// built-in catalog is stored (or refreshed) before the server starts.
func newPlugins(db *sqlstore.DB, ident *identityapp.Service, cfg config.Config, box *secret.Box, log *slog.Logger, reg prometheus.Registerer) (*pluginParts, error) {
	guard, err := egress.New(egress.Config{Allow: cfg.EgressAllow})
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_EGRESS_ALLOW: %w", err)
	}
	client := guard.Client()
	svc := pluginapp.New(pluginapp.Deps{
		Store: db.Plugins(), Stats: db.Plugins(), Access: ident, HTTP: client, Users: pluginUsers{db.Bots()},
		MCP: mcpDialer{client: client, sandbox: stdioSandbox(cfg)}, MCPIdle: cfg.MCPStdio.Idle, Builtins: builtins(plugins.Catalog(plugins.Deps{HTTP: client, Now: time.Now})),
		Log: log,
	})
	ctx, cancel := context.WithTimeout(context.Background(), catalogSyncTimeout)
	defer cancel()
	if err := svc.SyncCatalog(ctx); err != nil {
		return nil, fmt.Errorf("plugin catalog: %w", err)
	}
	closeSvc := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			log.Warn("writing the last plugin call statistics failed", "err", err)
		}
	}
	return &pluginParts{svc: svc, bind: []botapp.Option{botapp.WithPlugins(svc)}, tools: []chatapp.ToolSource{svc}, close: closeSvc}, nil
}

// builtins converts the catalog's plugins for the service.
func builtins(list []plugins.Builtin) []pluginapp.Builtin {
	out := make([]pluginapp.Builtin, len(list))
	for i, b := range list {
		out[i] = pluginapp.Builtin{Key: b.ID, Name: b.Name, Description: b.Description, OpenAPI: b.OpenAPI, Invoke: b.Invoke}
	}
	return out
}

// stdioSandbox is how stdio MCP servers run: under the bubblewrap of
// Python code nodes, with PERGOLA_MCP_STDIO_MEMORY_MIB of address space
// and PERGOLA_MCP_STDIO_CPU of CPU time per process.
func stdioSandbox(cfg config.Config) mcp.Sandbox {
	return mcp.Sandbox{Bwrap: cfg.Bwrap, Memory: int64(cfg.MCPStdio.MemoryMiB) << 20, CPU: cfg.MCPStdio.CPU}
}

// mcpDialer adapts infra/mcp to the service's port: HTTP servers through
// the guarded client, stdio servers in their sandbox.
type mcpDialer struct {
	client  *http.Client
	sandbox mcp.Sandbox
}

func (d mcpDialer) Dial(ctx context.Context, s pluginapp.MCPServer) (pluginapp.MCPSession, error) {
	var c *mcp.Client
	var err error
	if s.Transport == mcp.TransportStdio {
		c, err = mcp.ConnectStdio(ctx, mcp.StdioConfig{Command: s.Command, Args: s.Args, Env: s.Env, Sandbox: d.sandbox})
	} else {
		c, err = mcp.Connect(ctx, mcp.Config{URL: s.URL, Transport: s.Transport, Headers: s.Headers, HTTP: d.client})
	}
	if err != nil {
		return nil, err
	}
	return mcpSession{c}, nil
}

type mcpSession struct{ c *mcp.Client }

func (s mcpSession) ListTools(ctx context.Context) ([]pluginapp.MCPTool, error) {
	tools, err := s.c.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]pluginapp.MCPTool, len(tools))
	for i, t := range tools {
		out[i] = pluginapp.MCPTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out, nil
}

func (s mcpSession) CallTool(ctx context.Context, name string, args map[string]any) (string, error) {
	return s.c.CallTool(ctx, name, args)
}

func (s mcpSession) Close() { _ = s.c.Close() }

// Alive reports whether a stdio server's process still runs.
func (s mcpSession) Alive() bool { return s.c.Alive() }
