package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver: it decodes what the
// exporter posts to /v1/traces with the official OTLP protobuf types.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []otlpSpan
	services []string
	resource map[string]string // the last export's resource attributes
}

// otlpSpan is a received span, its ids in hex and its attributes as text.
type otlpSpan struct {
	name, traceID, spanID, parentID string
	kind                            tracepb.Span_SpanKind
	start, end                      time.Time
	attrs                           map[string]string
	errored                         bool
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *otlpReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var msg collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &msg)
	}
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		r.resource = map[string]string{}
		for _, a := range rs.GetResource().GetAttributes() {
			r.resource[a.Key] = anyText(a.Value)
			if a.Key == "service.name" {
				r.services = append(r.services, a.Value.GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				attrs := map[string]string{}
				for _, a := range sp.Attributes {
					attrs[a.Key] = anyText(a.Value)
				}
				r.spans = append(r.spans, otlpSpan{name: sp.Name, traceID: hex.EncodeToString(sp.TraceId), spanID: hex.EncodeToString(sp.SpanId),
					parentID: hex.EncodeToString(sp.ParentSpanId), kind: sp.Kind, start: time.Unix(0, int64(sp.StartTimeUnixNano)),
					end: time.Unix(0, int64(sp.EndTimeUnixNano)), attrs: attrs, errored: sp.GetStatus().GetCode() == 2})
			}
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func anyText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'f', -1, 64)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, anyText(e))
		}
		return strings.Join(parts, ",")
	}
	return v.String()
}

// waitSpan waits up to 15s for a span that match accepts.
func (r *otlpReceiver) waitSpan(t *testing.T, what string, match func(otlpSpan) bool) otlpSpan {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		spans := append([]otlpSpan(nil), r.spans...)
		r.mu.Unlock()
		for _, sp := range spans {
			if match(sp) {
				return sp
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the OTLP receiver got no span %s", what)
	return otlpSpan{}
}

// byID returns the received span with id.
func (r *otlpReceiver) byID(id string) (otlpSpan, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sp := range r.spans {
		if sp.spanID == id {
			return sp, true
		}
	}
	return otlpSpan{}, false
}

// waitTrace polls GET /api/traces/{id} until it answers 200 (traces are
// written in the background) and returns its data.
func (s *testServer) waitTrace(t *testing.T, id string, runs int) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := s.call(t, "GET", "/api/traces/"+id, bootstrapToken, nil)
		if r.status == 200 && len(items(t, r.data, "runs")) >= runs {
			return r.data
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /api/traces/%s: status %d %q, want %d runs", id, r.status, r.msg, runs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// spanNode is a span of the trace API's answer.
type spanNode = map[string]any

func children(t *testing.T, sp spanNode) []spanNode {
	t.Helper()
	return items(t, sp, "children")
}

func attr(sp spanNode, key string) any {
	a, _ := sp["attributes"].(map[string]any)
	return a[key]
}

// childNamed returns the first child of sp whose name is name.
func childNamed(t *testing.T, sp spanNode, name string) spanNode {
	t.Helper()
	for _, c := range children(t, sp) {
		if str(c, "name") == name {
			return c
		}
	}
	t.Fatalf("span %q has no child %q: %v", str(sp, "name"), name, childNames(t, sp))
	return nil
}

func childNames(t *testing.T, sp spanNode) []string {
	var out []string
	for _, c := range children(t, sp) {
		out = append(out, str(c, "name"))
	}
	return out
}
