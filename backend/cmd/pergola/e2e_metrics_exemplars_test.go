package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// checkExemplars reads /metrics as OpenMetrics and wants the model call,
// first token and tool call latencies to carry an exemplar naming the
// trace the exporter sent for the chat (its root span's trace id).
func checkExemplars(t *testing.T, s *testServer, r *otlpReceiver, chat string) {
	t.Helper()
	root := r.waitSpan(t, "invoke_agent of chat "+chat, func(sp otlpSpan) bool { return sp.attrs["pergola.chat.id"] == chat })
	body := openMetrics(t, s)
	want := `# {trace_id="` + root.traceID + `"}`
	for _, name := range []string{"pergola_model_call_seconds_bucket", "pergola_chat_first_token_seconds_bucket", "pergola_tool_call_seconds_bucket"} {
		if !hasExemplar(body, name, want) {
			t.Errorf("no %s sample with the exemplar %s in /metrics as OpenMetrics", name, want)
		}
	}
}

func openMetrics(t *testing.T, s *testServer) string {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Fatalf("/metrics answered %q to an OpenMetrics Accept", ct)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hasExemplar(body, name, exemplar string) bool {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, name+"{") && strings.Contains(line, exemplar) {
			return true
		}
	}
	return false
}
