package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/common/hlog"
	"github.com/cloudwego/hertz/pkg/network/standard"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	appapp "github.com/pergola-ai/pergola/application/app"
	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/backend/api"
	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/idl/merged"
	"github.com/pergola-ai/pergola/infra/provider"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// hardBodySlack is how far past PERGOLA_MAX_BODY_BYTES hertz itself still
// reads a body, so that the BodyLimit middleware can answer a declared
// oversize body with a proper envelope.
const hardBodySlack = 1 << 20

// started is noted as early as possible so the ready log can say how long
// the start took.
var started = time.Now()

// serve runs the HTTP server until ctx is done, then drains in-flight
// requests. When ready is not nil it receives the listening address.
func serve(ctx context.Context, env config.Lookup, ready chan<- string) error {
	cfg, err := config.Load(env)
	if err != nil {
		return err
	}
	log := newLogger(cfg)
	log.Info("starting pergola", append([]any{"version", version}, cfg.Redacted()...)...)
	if _, err := startPprof(ctx, cfg.PprofAddr, log); err != nil {
		return err
	}
	models, err := config.LoadModels(cfg.ModelsFile, env)
	if err != nil {
		return err
	}
	box, err := secretBox(cfg, log)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg, box, log)
	if err != nil {
		return err
	}
	defer db.Close()
	if applied, err := db.Migrate(ctx); err != nil {
		return err
	} else if len(applied) > 0 {
		log.Info("applied migrations", "migrations", applied)
	}
	shared, err := openKV(ctx, cfg, db)
	if err != nil {
		return err
	}
	defer shared.close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	raw, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("PERGOLA_ADDR: %w", err)
	}
	ln := newTrackingListener(raw, edgeLimits{header: cfg.Edge.ReadHeaderTimeout, request: cfg.Edge.ReadTimeout, maxBody: cfg.MaxBodyBytes})
	hlog.SetLevel(hlog.LevelWarn)
	h := server.New(server.WithListener(ln), server.WithTransport(standard.NewTransporter),
		server.WithMaxRequestBodySize(max(cfg.MaxBodyBytes, uploadBodyBytes(cfg), documentBodyBytes(cfg))+hardBodySlack), server.WithHandleMethodNotAllowed(true), server.WithExitWaitTime(cfg.ShutdownTimeout),
		server.WithDisablePrintRoute(true), server.WithSenseClientDisconnection(true),
		server.WithReadTimeout(cfg.Edge.ReadTimeout), server.WithIdleTimeout(cfg.Edge.IdleTimeout), server.WithMaxHeaderBytes(cfg.Edge.MaxHeaderBytes))
	deps, cleanup, err := features(ctx, cfg, db, box, models, log, reg, shared)
	defer cleanup()
	if err != nil {
		return err
	}
	deps.OpenAPI = merged.Document() // generated at build time: merging at start took most of it
	if deps.Proxies, err = middleware.ParseProxies(cfg.Edge.TrustedProxies); err != nil {
		return fmt.Errorf("PERGOLA_TRUSTED_PROXIES: %w", err)
	}
	api.Register(h.Engine, deps)
	return runServer(ctx, h, ln, cfg, log, ready)
}

// features builds every use case on the stores and returns what the HTTP
// surfaces need. cleanup (always safe to call) flushes and closes what they
// hold open, after the server has stopped.
func features(ctx context.Context, cfg config.Config, db *sqlstore.DB, box *secret.Box, models []llm.Model,
	log *slog.Logger, reg *prometheus.Registry, shared *kv) (api.Deps, func(), error) {
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	cache := newCaches(ctx, cfg, shared, log, &cleanups)
	obs := newObservability(reg, cfg.Metrics)
	sh := newShares(cfg, reg)
	traces, err := newTracing(ctx, cfg, db, reg, log)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	cleanups = append(cleanups, traces.close) // first in, last out: after the runs stopped
	watchQueues(reg, shared.queue, cfg, log)
	ident := cache.identity(db)
	if err := bootstrap(ctx, ident, cfg, log); err != nil {
		return api.Deps{}, cleanup, err
	}
	modelHTTP := provider.NewHTTPClient(provider.Pool{}) // one bounded pool for every model call
	modelCalls := provider.Factory{HTTPClient: modelHTTP}
	registry := modelreg.New(cache.models(db), models, prober{modelCalls},
		modelreg.WithEmbedder(modelCalls), modelreg.WithReranker(modelCalls))
	traces.start(registry)
	plugins, err := newPlugins(db, ident, cfg, box, log, reg)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	cleanups = append(cleanups, plugins.close)
	tables, err := newTables(ctx, db, ident, cfg, log)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	cleanups = append(cleanups, tables.close)
	wft := &workflowTools{store: db.Workflows()}
	apps := appapp.New(db.Apps(), ident)
	files, err := newFiles(ctx, cfg, db, ident, log)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	know, err := newKnowledge(ctx, cfg, db, cache, ident, registry, modelHTTP, files, shared.queue, log, &cleanups, sh)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	bots := newBots(db, ident, registry, append(append(append(plugins.bind, tables.bind...), wft.bind()...), channelBinding(db), cache.bots(),
		botapp.WithApps(apps), botapp.WithKnowledge(know))...)
	convs := newConversations(db, ident, bots).WithTextLimits(textLimits(cfg))
	workflows, stopWorkflows, err := newWorkflows(ctx, db, ident, registry, modelHTTP, bots, plugins.svc, tables.svc,
		newWorkflowKnowledge(know, db.Knowledge(), registry), shared.queue, cfg, log, cache, obs.runs, traces.workflows, sh)
	cleanups = append(cleanups, stopWorkflows)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	wft.attach(workflows)
	tools := append(append(plugins.tools, tables.tools...), wft.tools()...)
	chatStore, stopRecovery, err := chatRecovery(ctx, db, cfg, log)
	cleanups = append(cleanups, stopRecovery)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	chats, err := newChat(db, chatStore, log, obs.chat, registry, modelHTTP, bots, convs, shared.bus, tools, wft.resumer(), files, traces.chats,
		chatRecaller{know}, sh, cfg)
	if err != nil {
		return api.Deps{}, cleanup, err
	}
	if err := chats.Listen(ctx); err != nil {
		return api.Deps{}, cleanup, fmt.Errorf("listen for chat cancels: %w", err)
	}
	cleanups = append(cleanups, func() { waitForChats(chats, cfg, log) })
	botTrig := newBotTriggers(db, bots, chats)
	botTrig.inbound = newChannelRuntime(ctx, &cleanups, db, bots, chats, shared, cfg, log, sh, botTrig.outcomes.channelDone)
	return api.Deps{
		Log: log, Identity: ident, Models: registry, Bots: bots, Convs: convs, Chat: chats,
		Plugins: plugins.svc, Tables: tables.svc, Workflows: workflows, Channels: newChannels(db, bots, cfg),
		Inbound: botTrig.inbound,
		WebChat: newWebChat(db, bots, chats, shared.limiter, cfg, log),
		MCP:     newMCP(ident, bots, chats, workflows, convs, log), PublicURL: cfg.PublicBase(), MCPChanges: cache.hub, MCPSessions: mcpSessions(shared, cfg), MCPBus: shared.bus, MCPLife: ctx,
		Usage: newUsage(db, ident),
		Apps:  apps,
		Files: files, UploadBytes: uploadBodyBytes(cfg),
		Traces:    traces.service(ident),
		Knowledge: know, Embeddings: apiEmbedder{embedder{reg: registry, f: modelCalls, field: "model"}, log},
		Triggers: newTriggers(ctx, db, ident, workflows, botTrig, shared.limiter, cfg, log, &cleanups),
		Limiter:  shared.limiter, Checks: append(shared.checks, tables.check...), Metrics: reg,
		MaxBodyBytes: cfg.MaxBodyBytes, RateLimit: cfg.RateLimit, CORSOrigins: cfg.CORSOrigins, AuthFailures: cfg.Edge.AuthFailures,
		DocumentBytes: documentBodyBytes(cfg),
	}, cleanup, nil
}

func runServer(ctx context.Context, h *server.Hertz, ln *trackingListener, cfg config.Config, log *slog.Logger, ready chan<- string) error {
	errc := make(chan error, 1)
	go func() { errc <- h.Run() }()
	log.Info("pergola is ready", "addr", ln.Addr().String(), "startup_ms", time.Since(started).Milliseconds())
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; finishing in-flight requests", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.Shutdown(sctx) }()
	for h.IsRunning() {
		time.Sleep(time.Millisecond) // Shutdown flips the state first thing
	}
	ln.wakeIdle()
	if err := <-done; err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	log.Info("stopped")
	return nil
}

func newLogger(cfg config.Config) *slog.Logger {
	level, _ := config.ParseLevel(cfg.LogLevel)
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, opts))
}

// waitForChats lets chats running in the background finish before the
// process exits, within the shutdown timeout.
func waitForChats(chats *chatapp.Service, cfg config.Config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := chats.Close(ctx); err != nil {
		log.Warn("chats still running at exit", "err", err)
	}
}

// prober adapts the provider factory to the registry's "test this model".
type prober struct{ f provider.Factory }

func (p prober) Probe(ctx context.Context, m llm.Model) (string, int, int, error) {
	r := p.f.Probe(ctx, m)
	if !r.OK {
		return r.Reply, r.InputTokens, r.OutputTokens, errors.New(r.Error)
	}
	return r.Reply, r.InputTokens, r.OutputTokens, nil
}
