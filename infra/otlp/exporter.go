// Package otlp exports finished run traces (application/trace) over
// OTLP/HTTP with the OpenTelemetry SDK: every span with its real start and
// end, its parent, its gen_ai.* attributes, and its content only when
// content capture is on.
package otlp

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/pergola-ai/pergola/application/trace"
)

// ServiceName is the service.name of exported spans.
const ServiceName = "pergola"

// Config sets up an Exporter.
type Config struct {
	// Endpoint is the collector's OTLP/HTTP base URL (http://host:4318);
	// spans go to its /v1/traces unless the URL has a path of its own.
	Endpoint string
	// CaptureContent exports prompts, completions, tool arguments and
	// results and node data; off, those attributes are left out.
	CaptureContent bool
	Headers        map[string]string
}

// Exporter sends traces to an OTLP collector; it is a trace.Exporter.
type Exporter struct {
	provider *sdktrace.TracerProvider
	tracer   oteltrace.Tracer
	content  bool
}

var _ trace.Exporter = (*Exporter)(nil)

// New returns an exporter to cfg.Endpoint; Shutdown flushes and stops it.
func New(ctx context.Context, cfg Config) (*Exporter, error) {
	endpoint, err := tracesURL(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	if len(cfg.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	res, err := newResource(ctx)
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithIDGenerator(ids{}),
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)))
	return &Exporter{provider: tp, tracer: tp.Tracer("github.com/pergola-ai/pergola"), content: cfg.CaptureContent}, nil
}

// newResource describes the process as the SDK's defaults do (telemetry
// SDK, OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME), with service.name
// "pergola" unless the environment names another.
func newResource(ctx context.Context) (*resource.Resource, error) {
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(ServiceName)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("otlp resource (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME): %w", err)
	}
	return res, nil
}

// tracesURL checks raw and adds /v1/traces when it has no path.
func tracesURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("PERGOLA_OTLP_ENDPOINT %q: give the collector's OTLP/HTTP URL, e.g. http://localhost:4318", raw)
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// Export hands every span of traces to the SDK's batcher; each trace
// keeps the id trace.OTelID derives from it.
func (e *Exporter) Export(ctx context.Context, traces []*trace.Trace) error {
	for _, t := range traces {
		e.span(withTraceID(ctx, trace.OTelID(t.Kind, t.ID)), t.Root)
	}
	return nil
}

// ForceFlush sends what the batcher holds.
func (e *Exporter) ForceFlush(ctx context.Context) error { return e.provider.ForceFlush(ctx) }

// Shutdown flushes and stops the exporter.
func (e *Exporter) Shutdown(ctx context.Context) error { return e.provider.Shutdown(ctx) }

func (e *Exporter) span(parent context.Context, s *trace.Span) {
	ctx, sp := e.tracer.Start(parent, s.Name, oteltrace.WithTimestamp(s.Start), oteltrace.WithSpanKind(spanKind(s)),
		oteltrace.WithAttributes(e.attributes(s)...))
	for _, c := range s.Children {
		e.span(ctx, c)
	}
	if s.Status == trace.StatusError {
		sp.SetStatus(codes.Error, s.Error)
		sp.SetAttributes(attribute.String(trace.AttrErrorType, "pergola."+s.Kind))
	}
	end := s.End
	if end.IsZero() {
		end = s.Start
	}
	sp.End(oteltrace.WithTimestamp(end))
}

// spanKind is CLIENT for a model call (a bot's or an llm node's), as the
// GenAI conventions ask of inference spans, INTERNAL otherwise.
func spanKind(s *trace.Span) oteltrace.SpanKind {
	if s.Kind == trace.KindModel || s.Attributes[trace.AttrOperation] == trace.OpChat {
		return oteltrace.SpanKindClient
	}
	return oteltrace.SpanKindInternal
}

// attributes converts s's attributes, without content unless captured.
func (e *Exporter) attributes(s *trace.Span) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(s.Attributes)+1)
	out = append(out, attribute.String("pergola.span.kind", s.Kind))
	for k, v := range s.Attributes {
		if !e.content && trace.IsContent(k) {
			continue
		}
		out = append(out, value(k, v))
	}
	return out
}

func value(k string, v any) attribute.KeyValue {
	switch x := v.(type) {
	case string:
		return attribute.String(k, x)
	case bool:
		return attribute.Bool(k, x)
	case int:
		return attribute.Int(k, x)
	case int64:
		return attribute.Int64(k, x)
	case float64:
		return attribute.Float64(k, x)
	case []string:
		return attribute.StringSlice(k, x)
	}
	return attribute.String(k, fmt.Sprint(v))
}
