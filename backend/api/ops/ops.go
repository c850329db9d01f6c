// Package ops serves the operational endpoints: health, readiness,
// Prometheus metrics and the OpenAPI document.
package ops

import (
	"context"
	"net/http"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/common/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Check is one readiness probe, such as the database or Redis ping.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Handlers serves the ops endpoints.
type Handlers struct {
	Checks   []Check
	Gatherer prometheus.Gatherer
	OpenAPI  []byte
}

// Healthz answers 200 while the process serves requests.
func (h Handlers) Healthz(ctx context.Context, c *app.RequestContext) {
	c.JSON(http.StatusOK, map[string]any{"status": "ok"})
}

// Readyz pings every dependency and answers 503 naming those that fail.
func (h Handlers) Readyz(ctx context.Context, c *app.RequestContext) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	status, code := "ok", http.StatusOK
	results := map[string]string{}
	for _, chk := range h.Checks {
		if err := chk.Ping(ctx); err != nil {
			results[chk.Name] = err.Error()
			status, code = "unavailable", http.StatusServiceUnavailable
			continue
		}
		results[chk.Name] = "ok"
	}
	c.JSON(code, map[string]any{"status": status, "checks": results})
}

// Metrics returns the /metrics handler: client_golang's promhttp, which
// negotiates the exposition format with the scraper (OpenMetrics, with
// the exemplars of the latency histograms, when asked for; the classic
// text format otherwise) and compresses when the scraper accepts it.
func (h Handlers) Metrics() app.HandlerFunc {
	return adaptor.HertzHandler(promhttp.HandlerFor(h.Gatherer, promhttp.HandlerOpts{EnableOpenMetrics: true}))
}

// OpenAPIDoc serves the merged OpenAPI document as YAML.
func (h Handlers) OpenAPIDoc(ctx context.Context, c *app.RequestContext) {
	c.Data(http.StatusOK, "application/yaml; charset=utf-8", h.OpenAPI)
}
