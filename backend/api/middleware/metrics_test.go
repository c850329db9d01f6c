package middleware

import (
	"context"
	"maps"
	"net"
	"net/http"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/network/standard"
	"github.com/prometheus/client_golang/prometheus"
)

// TestMetricsBoundMethods: a client sending made-up request methods, to a
// route or to none, adds no series of its own to the request counter;
// standard methods keep their names.
func TestMetricsBoundMethods(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := server.New(server.WithListener(ln), server.WithTransport(standard.NewTransporter), server.WithExitWaitTime(0))
	h.Use(m.Handler())
	h.GET("/ok", func(ctx context.Context, c *app.RequestContext) { c.String(200, "ok") })
	go h.Spin()
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	get(t, "http://"+ln.Addr().String()+"/ok") // waits for the server

	for i, method := range []string{"FOO1", "FOO2", "BAR", "POST"} {
		path := []string{"/ok", "/nothing"}[i%2]
		req, _ := http.NewRequest(method, "http://"+ln.Addr().String()+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := map[string]float64{"GET /ok 200": 1, "POST unmatched 404": 1, "other unmatched 404": 3}
	if got := requestCounts(t, reg); !maps.Equal(got, want) {
		t.Fatalf("pergola_http_requests_total = %v, want %v", got, want)
	}
}

// requestCounts reads pergola_http_requests_total as "method route status" → value.
func requestCounts(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "pergola_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out[l["method"]+" "+l["route"]+" "+l["status"]] = m.GetCounter().GetValue()
		}
	}
	return out
}
