package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// flakyFlow calls an HTTP service that fails once (retried), then asks a
// question, then ends with the answer and the service's reply.
const flakyFlow = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "item", "type": "string"}]},
  {"id": "get", "type": "http", "config": {"url": "SERVICE/stock"}, "settings": {"retries": 2, "retry_backoff_ms": 10}},
  {"id": "size", "type": "question", "config": {"question": "Which size?", "answer_type": "option", "options": ["S", "M"]}},
  {"id": "end", "type": "end", "inputs": {"size": {"ref": {"node": "size", "path": "answer"}}, "stock": {"ref": {"node": "get", "path": "body"}}}}],
 "edges": [{"from": "start", "to": "get"}, {"from": "get", "to": "size"}, {"from": "size", "to": "end"}]}`

// TestTraceOfRetriesAndInterrupts: a workflow run whose HTTP node fails
// once and succeeds on its retry, then asks a question, is one trace in
// GET /api/traces/{execute_id}: the first run's tree shows the node with
// its attempts and retries and the interrupt with what was asked; once
// resumed, the trace holds a second run that ends the workflow. On SQLite
// and on MariaDB with Redis.
func TestTraceOfRetriesAndInterrupts(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			var calls atomic.Int32
			svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if calls.Add(1) == 1 {
					http.Error(w, "busy", http.StatusInternalServerError)
					return
				}
				_, _ = w.Write([]byte("in stock"))
			}))
			t.Cleanup(svc.Close)
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			id := c.workflow(t, "flaky_order", "orders after asking", strings.Replace(flakyFlow, "SERVICE", svc.URL, 1), true)

			events := c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": map[string]any{"item": "shirt"}})
			exec := doneExecuteID(t, events)
			first := items(t, c.s.waitTrace(t, exec, 1), "runs")[0]["root"].(map[string]any)
			get := childNamed(t, first, "node get")
			if attr(get, "pergola.node.attempts") != float64(2) || attr(get, "pergola.node.retries") != float64(1) || str(get, "status") != "ok" {
				t.Fatalf("http node span = %v, want 2 attempts, 1 retry, ok", get)
			}
			asked := childNamed(t, first, "interrupt size")
			if s, _ := attr(asked, "pergola.interrupt").(string); !strings.Contains(s, "Which size?") {
				t.Fatalf("interrupt span = %v, want the question", asked)
			}
			if attr(first, "pergola.outcome") != "interrupted" {
				t.Fatalf("first run outcome = %v", attr(first, "pergola.outcome"))
			}

			events = c.answer(t, id, events, "Which size?", "M")
			if out := streamedOutput(t, events); out["size"] != "M" || out["stock"] != "in stock" {
				t.Fatalf("resumed output = %v", out)
			}
			runs := items(t, c.s.waitTrace(t, exec, 2), "runs")
			second := runs[1]["root"].(map[string]any)
			if attr(second, "pergola.outcome") != "success" {
				t.Fatalf("resumed run = %v, want success", second)
			}
			if !strings.Contains(strings.Join(childNames(t, second), ","), "node end") {
				t.Fatalf("resumed run children = %v, want the end node", childNames(t, second))
			}
		})
	}
}
