package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	traceapp "github.com/pergola-ai/pergola/application/trace"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/otlp"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// tracing records a span tree of every chat turn and workflow run: the
// chat hook and workflow tracer build it in memory, the writer stores it
// (and exports it over OTLP when PERGOLA_OTLP_ENDPOINT is set) in the
// background.
type tracing struct {
	writer    *traceapp.Writer
	chats     *traceapp.Chats
	workflows *traceapp.Workflows
	store     *sqlstore.TraceStore
	exporter  *otlp.Exporter // nil: no export
	stopPrune context.CancelFunc
	log       *slog.Logger
}

// newTracing starts the trace writer; close (always safe to call) writes
// what is queued and flushes the export.
func newTracing(ctx context.Context, cfg config.Config, db *sqlstore.DB, reg prometheus.Registerer, log *slog.Logger) (*tracing, error) {
	dropped := prometheus.NewCounter(prometheus.CounterOpts{Name: "pergola_traces_dropped_total",
		Help: "Run traces dropped because the trace writer's queue was full."})
	reg.MustRegister(dropped)
	t := &tracing{store: db.Traces(), log: log}
	wcfg := traceapp.WriterConfig{Store: t.store, OnDrop: dropped.Inc, Log: log}
	if cfg.Traces.OTLPEndpoint != "" {
		exp, err := otlp.New(ctx, otlp.Config{Endpoint: cfg.Traces.OTLPEndpoint, CaptureContent: cfg.Traces.OTLPCaptureContent})
		if err != nil {
			return nil, err
		}
		t.exporter = exp
		wcfg.Exporters = []traceapp.Exporter{exp}
		log.Info("exporting run traces over OTLP", "endpoint", cfg.Traces.OTLPEndpoint, "capture_content", cfg.Traces.OTLPCaptureContent)
	}
	t.writer = traceapp.NewWriter(wcfg)
	pruneCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	t.stopPrune = stop
	go traceapp.Pruner{Store: t.store, Retention: cfg.Traces.Retention, Every: time.Hour, Log: log, Now: time.Now}.Run(pruneCtx)
	return t, nil
}

// start builds the chat hook and the workflow tracer once the models they
// describe can be looked up.
func (t *tracing) start(models traceapp.Models) {
	t.chats = traceapp.NewChats(t.writer, models)
	t.workflows = traceapp.NewWorkflows(t.writer, t.chats, models)
}

// service returns the trace API's use case.
func (t *tracing) service(access traceapp.Authorizer) *traceapp.Service {
	return traceapp.NewService(t.store, access)
}

func (t *tracing) close() {
	t.stopPrune()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := t.writer.Close(ctx); err != nil {
		t.log.Warn("run traces not all written at exit", "err", err)
	}
	if t.exporter != nil {
		if err := t.exporter.Shutdown(ctx); err != nil {
			t.log.Warn("run traces not all exported at exit", "err", err)
		}
	}
}
