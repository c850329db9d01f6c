package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestMetricsAfterLoad drives a scripted load through the real server —
// two chats on bot A calling the calculator plugin's tool, two plain chats
// on bot B, a failing chat on bot C, a chat on bot D calling a workflow as
// its tool, four workflow runs (one failing) — with
// PERGOLA_METRICS_MAX_BOTS=2, then scrapes /metrics and checks every new
// series exactly: C and D, past the cap, count as "other"; the time to
// first token has one sample per turn that answered. On SQLite and on
// MariaDB with Redis.
func TestMetricsAfterLoad(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, backend{b.name, func(t *testing.T) map[string]string {
				env := b.env(t)
				env["PERGOLA_METRICS_MAX_BOTS"] = "2"
				return env
			}})
			s := c.s
			calc := calculatorID(t, s, c.ws)
			direct := metricsDirectRun(t, s, c.ws)
			botA := c.bot(t, map[string]any{"name": "A", "prompt": "p", "model": map[string]any{"model_id": "fake"},
				"plugins": []map[string]any{{"plugin_id": calc, "tool": "evaluate"}}})
			botB := c.bot(t, map[string]any{"name": "B", "prompt": "p", "model": map[string]any{"model_id": "fake"}})
			botC := c.bot(t, map[string]any{"name": "C", "prompt": "p", "model": map[string]any{"model_id": "fake"}})
			for range 2 {
				metricsToolChat(t, c, botA)
			}
			usageChats(t, c, botB, 2, 11, 5)
			c.llm.Enqueue(fakellm.Fail(400, "no such thing"))
			events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botC, "user_id": "u1",
				"additional_messages": userMessage("fail"), "stream": true})
			if got := names(events); got[len(got)-2] != "conversation.chat.failed" {
				t.Fatalf("failing chat events = %v", got)
			}
			usageRuns(t, s)
			botD := c.bot(t, map[string]any{"name": "D", "prompt": "p", "model": map[string]any{"model_id": "fake"},
				"workflows": []map[string]any{{"workflow_id": direct}}})
			c.llm.Enqueue(fakellm.Calls(fakellm.Call("echo", `{"name":"bo"}`)))
			c.llm.Enqueue(fakellm.Text("done"))
			events = s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botD, "user_id": "u1",
				"additional_messages": userMessage("echo bo"), "stream": true})
			if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
				t.Fatalf("workflow tool chat events = %v", got)
			}

			m := scrape(t, s)
			ws := c.ws
			m.want(t, "pergola_chat_turns_total", 2, "workspace", ws, "bot", botA, "outcome", "completed")
			m.want(t, "pergola_chat_turns_total", 2, "workspace", ws, "bot", botB, "outcome", "completed")
			m.want(t, "pergola_chat_turns_total", 1, "workspace", ws, "bot", "other", "outcome", "failed")
			m.want(t, "pergola_chat_turns_total", 1, "workspace", ws, "bot", "other", "outcome", "completed")
			m.wantSeries(t, "pergola_chat_turns_total", 4)
			m.want(t, "pergola_bot_tokens_total", 16, "workspace", ws, "bot", botA, "model", "fake", "kind", "input")
			m.want(t, "pergola_bot_tokens_total", 6, "workspace", ws, "bot", botA, "model", "fake", "kind", "output")
			m.want(t, "pergola_bot_tokens_total", 22, "workspace", ws, "bot", botB, "model", "fake", "kind", "input")
			m.want(t, "pergola_bot_tokens_total", 10, "workspace", ws, "bot", botB, "model", "fake", "kind", "output")
			m.want(t, "pergola_tool_calls_total", 2, "plugin", calc, "tool", "evaluate", "outcome", "ok")
			m.want(t, "pergola_tool_calls_total", 1, "plugin", "workflow", "tool", "echo", "outcome", "ok")
			m.wantSeries(t, "pergola_tool_calls_total", 2)
			m.want(t, "pergola_chat_first_token_seconds_count", 5, "model", "fake")
			m.want(t, "pergola_model_calls_total", 1, "model", "fake", "outcome", "error")
			wf := m.label(t, "pergola_workflow_runs_total", "workflow", "outcome", "fail")
			m.want(t, "pergola_workflow_runs_total", 2, "workspace", ws, "workflow", wf, "outcome", "success")
			m.want(t, "pergola_workflow_runs_total", 1, "workspace", ws, "workflow", wf, "outcome", "fail")
			m.want(t, "pergola_workflow_runs_total", 2, "workspace", ws, "workflow", direct, "outcome", "success")
			m.wantSeries(t, "pergola_workflow_runs_total", 3)
			m.want(t, "pergola_queue_depth", 0, "queue", "workflow_runs")
			m.want(t, "pergola_queue_depth", 0, "queue", "channel_events")
		})
	}
}

// metricsDirectRun runs a workflow of engine nodes only once: such a run
// is stored in one write when it ends (SaveRun), not started and finished.
func metricsDirectRun(t *testing.T, s *testServer, ws string) string {
	t.Helper()
	id := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "echo",
		"definition": json.RawMessage(echoWorkflow)}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
		"parameters": map[string]any{"name": "ada"}}).must(t, 200)
	return id
}

const echoWorkflow = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "name", "type": "string", "required": true}]},
    {"id": "hi", "type": "text", "config": {"op": "template", "template": "hi {{n}}"}, "inputs": {"n": {"ref": {"node": "start", "path": "name"}}}},
    {"id": "end", "type": "end"}
  ],
  "edges": [{"from": "start", "to": "hi"}, {"from": "hi", "to": "end"}]
}`

// metricsToolChat runs one chat whose model calls the calculator, then
// answers: 3+5 tokens in, 1+2 out.
func metricsToolChat(t *testing.T, c *chatSetup, botID string) {
	t.Helper()
	c.llm.Enqueue(fakellm.Reply{ToolCalls: []fakellm.ToolCall{fakellm.Call("evaluate", `{"expression":"6*7"}`)},
		Usage: &fakellm.Usage{PromptTokens: 3, CompletionTokens: 1}})
	c.llm.Enqueue(fakellm.Reply{Text: "42", Usage: &fakellm.Usage{PromptTokens: 5, CompletionTokens: 2}})
	events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
		"additional_messages": userMessage("what is 6*7?"), "stream": true})
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("tool chat events = %v", got)
	}
}

// TestMetricsQueueGauges queues three channel events on a server that
// answers none (PERGOLA_CHANNEL_WORKERS=0): /metrics shows them waiting,
// the oldest at least as old as the test waited. On the memory queue and
// on Redis.
func TestMetricsQueueGauges(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_CHANNEL_WORKERS": "0", "PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			botID := c.bot(t, map[string]any{"name": "Support", "model": map[string]any{"model_id": "fake"}})
			sink := newCallbackSink(t)
			chID, path := webhookChannel(t, c.s, botID, map[string]any{"callback_url": sink.srv.URL + "/answers"})
			c.s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{chID}}).must(t, 201)
			m := scrape(t, c.s)
			m.want(t, "pergola_queue_depth", 0, "queue", "channel_events")
			m.want(t, "pergola_queue_oldest_age_seconds", 0, "queue", "channel_events")
			for _, id := range []string{"q-1", "q-2", "q-3"} {
				r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": id, "user_id": "carol", "text": "hi"})
				if r.status != 202 {
					t.Fatalf("event %s = %d %v, want 202", id, r.status, r.body)
				}
			}
			const waited = 1200 * time.Millisecond
			time.Sleep(waited)
			m = scrape(t, c.s)
			m.want(t, "pergola_queue_depth", 3, "queue", "channel_events")
			m.want(t, "pergola_queue_depth", 0, "queue", "workflow_runs")
			if age := m.series("pergola_queue_oldest_age_seconds", "queue", "channel_events"); len(age) != 1 ||
				age[0] < waited.Seconds() || age[0] > 30 {
				t.Errorf("oldest channel event age = %v, want at least %v", age, waited.Seconds())
			}
		})
	}
}
