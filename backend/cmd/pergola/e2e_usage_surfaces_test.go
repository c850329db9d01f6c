package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// usageSurface is a bot answering on one surface, with the chats the test
// runs on it.
type usageSurface struct {
	name  string
	bot   string
	chats int
	run   func(t *testing.T, u *usageSetup, bot string)
}

// usageSetup is a server with the fake model, and the ids OpenAI's
// surfaces gave their chats.
type usageSetup struct {
	*chatSetup
	openAIIDs []string
}

// TestUsageAgreesWithMetrics drives every surface a bot answers on —
// /v3/chat, /v1/chat/completions (plain and streamed), /v1/responses, the
// webhook channel, the web chat, the MCP bot tool, a bot calling a
// workflow whose llm node calls the model — and a direct workflow run
// with an llm node, then compares GET /api/usage with the /metrics
// counters: per bot, chats with turns and tokens with the bot's tokens;
// workflow runs and their tokens with the workflow counters; the
// workspace's totals with the sum of both. On SQLite and on MariaDB with
// Redis.
func TestUsageAgreesWithMetrics(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			u := &usageSetup{chatSetup: newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))}
			flow := u.workflow(t, "ask_model", "asks the model", llmOnceWorkflow, true)
			surfaces := []usageSurface{
				{name: "v3", chats: 2, run: usageV3},
				{name: "completions", chats: 2, run: usageCompletions},
				{name: "responses", chats: 1, run: usageResponses},
				{name: "webhook", chats: 1, run: usageWebhook},
				{name: "web", chats: 1, run: usageWeb},
				{name: "mcp", chats: 1, run: usageMCP},
			}
			for i := range surfaces {
				sf := &surfaces[i]
				sf.bot = u.bot(t, map[string]any{"name": "usage " + sf.name, "prompt": "p", "model": map[string]any{"model_id": "fake"}})
				sf.run(t, u, sf.bot)
			}
			tool := u.bot(t, map[string]any{"name": "usage tool", "prompt": "p", "model": map[string]any{"model_id": "fake"},
				"workflows": []map[string]any{{"workflow_id": flow}}})
			usageV3Chat(t, u, tool, `#call ask_model {"q":"tell me"}`)
			u.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": flow,
				"parameters": map[string]any{"q": "directly"}}).must(t, 200)

			m := scrape(t, u.s)
			rows := usageByBot(t, u)
			for _, sf := range surfaces {
				row := rows[sf.bot]
				if row == nil {
					t.Errorf("%s: /api/usage has no row for bot %s; rows %v", sf.name, sf.bot, rows)
					continue
				}
				turns := sum(m.series("pergola_chat_turns_total", "workspace", u.ws, "bot", sf.bot))
				in := sum(m.series("pergola_bot_tokens_total", "workspace", u.ws, "bot", sf.bot, "kind", "input"))
				out := sum(m.series("pergola_bot_tokens_total", "workspace", u.ws, "bot", sf.bot, "kind", "output"))
				got := [3]float64{row["chats"].(float64), row["input_tokens"].(float64), row["output_tokens"].(float64)}
				if want := [3]float64{turns, in, out}; got != want || turns != float64(sf.chats) || in == 0 || out == 0 {
					t.Errorf("%s: /api/usage chats, input, output = %v; /metrics turns and tokens %v; want %d chats with tokens",
						sf.name, got, want, sf.chats)
				}
			}
			usageCompareTotals(t, u, m)
			usageTracesByOpenAIID(t, u)
		})
	}
}

// usageTracesByOpenAIID finds the trace of each chat by the id
// /v1/chat/completions or /v1/responses gave it: the trace of the chat
// whose id the digits name.
func usageTracesByOpenAIID(t *testing.T, u *usageSetup) {
	t.Helper()
	if len(u.openAIIDs) != 2 {
		t.Fatalf("ids = %v, want a completion's and a response's", u.openAIIDs)
	}
	for _, id := range u.openAIIDs {
		digits := strings.TrimPrefix(id, "chatcmpl-")
		if rest, ok := strings.CutPrefix(id, "resp_"); ok {
			digits = strings.Split(rest, "_")[1]
		}
		tr := u.s.waitTrace(t, id, 1)
		if str(tr, "trace_id") != digits || str(tr, "kind") != "chat" {
			t.Errorf("trace of %s = %v, want chat %s", id, tr, digits)
		}
	}
	u.s.call(t, "GET", "/api/traces/chatcmpl-x1", bootstrapToken, nil).fails(t, 400, 4000, "id: must be a chat id")
	u.s.call(t, "GET", "/api/traces/chatcmpl-123456789", bootstrapToken, nil).fails(t, 404, 4200, "trace 123456789 not found")
}

// usageCompareTotals compares the workspace's chats, runs and tokens in
// /api/usage with the sums of the chat and workflow counters.
func usageCompareTotals(t *testing.T, u *usageSetup, m scraped) {
	t.Helper()
	var got [4]float64
	for _, row := range usageByBot(t, u) {
		for i, k := range []string{"chats", "runs", "input_tokens", "output_tokens"} {
			got[i] += row[k].(float64)
		}
	}
	want := [4]float64{
		sum(m.series("pergola_chat_turns_total", "workspace", u.ws)),
		sum(m.series("pergola_workflow_runs_total", "workspace", u.ws)),
		sum(m.series("pergola_bot_tokens_total", "workspace", u.ws, "kind", "input")) +
			sum(m.series("pergola_workflow_tokens_total", "workspace", u.ws, "kind", "input")),
		sum(m.series("pergola_bot_tokens_total", "workspace", u.ws, "kind", "output")) +
			sum(m.series("pergola_workflow_tokens_total", "workspace", u.ws, "kind", "output")),
	}
	if got != want {
		t.Errorf("workspace totals: /api/usage chats, runs, input, output = %v; /metrics %v", got, want)
	}
}

func usageByBot(t *testing.T, u *usageSetup) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, it := range usageItems(t, u.s, "/api/usage?group_by=bot&workspace_id="+u.ws, bootstrapToken) {
		out[str(it, "bot_id")] = it
	}
	return out
}

// llmOnceWorkflow asks the model q and returns its answer.
const llmOnceWorkflow = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "q", "type": "string", "required": true, "description": "the question"}]},
  {"id": "ask", "type": "llm", "config": {"model_id": "fake", "prompt": "{{q}}"}, "inputs": {"q": {"ref": {"node": "start", "path": "q"}}}},
  {"id": "end", "type": "end", "inputs": {"answer": {"ref": {"node": "ask", "path": "output"}}}}],
 "edges": [{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}]}`

func usageV3(t *testing.T, u *usageSetup, bot string) {
	usageV3Chat(t, u, bot, "hello")
	usageV3Chat(t, u, bot, "hello again")
}

func usageV3Chat(t *testing.T, u *usageSetup, bot, text string) {
	t.Helper()
	events := u.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": bot, "user_id": "u1",
		"additional_messages": userMessage(text), "stream": true})
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("chat events = %v", got)
	}
}

func usageCompletions(t *testing.T, u *usageSetup, bot string) {
	msgs := []map[string]any{{"role": "user", "content": "hello completions"}}
	r := u.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": bot, "messages": msgs})
	if r.status != 200 || r.raw["usage"].(map[string]any)["total_tokens"].(float64) == 0 {
		t.Fatalf("completion = %d %v", r.status, r.raw)
	}
	u.openAIIDs = append(u.openAIIDs, str(r.raw, "id"))
	events := u.s.stream(t, "/v1/chat/completions", bootstrapToken, map[string]any{"model": bot, "messages": msgs, "stream": true})
	if last := events[len(events)-1]; last.data != "[DONE]" {
		t.Fatalf("streamed completion ended with %v", last)
	}
}

func usageResponses(t *testing.T, u *usageSetup, bot string) {
	r := u.s.call(t, "POST", "/v1/responses", bootstrapToken, map[string]any{"model": bot, "input": "hello responses"})
	if r.status != 200 || str(r.raw, "status") != "completed" {
		t.Fatalf("response = %d %v", r.status, r.raw)
	}
	u.openAIIDs = append(u.openAIIDs, str(r.raw, "id"))
}

func usageWebhook(t *testing.T, u *usageSetup, bot string) {
	ch, path := webhookChannel(t, u.s, bot, map[string]any{})
	u.s.call(t, "POST", "/api/bots/"+bot+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{ch}}).must(t, 201)
	r := postEvent(t, u.s, path, webhookSecret, time.Now(), map[string]any{"event_id": "usage-1", "user_id": "alice", "text": "hello hook"})
	if r.status != 200 || str(r.body, "text") != "echo: hello hook" {
		t.Fatalf("webhook event = %d %v", r.status, r.body)
	}
}

func usageWeb(t *testing.T, u *usageSetup, bot string) {
	w := &webSetup{s: u.s, llm: u.llm, ws: u.ws, bot: bot}
	ch := w.channel(t, "usage web", map[string]any{})
	w.publish(t, ch)
	token, _ := w.session(t, ch, "")
	if got := answer(t, w.send(t, ch, token, "hello web", "m1")); got != "echo: hello web" {
		t.Fatalf("web answer = %q", got)
	}
}

func usageMCP(t *testing.T, u *usageSetup, bot string) {
	cl, err := u.s.connectMCP(t, bootstrapToken, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res := cl.call(t, "chat_usage_mcp", map[string]any{"message": "hello mcp"}, "")
	if res.IsError || textOf(res) != "echo: hello mcp" {
		b, _ := json.Marshal(res)
		t.Fatalf("mcp chat = %s", b)
	}
}
