package main

import (
	"strings"
	"testing"
	"time"
)

// handoffTogether is issue 24's "done when" in one bot: Lead has two
// sub-agents and a handoff target. It answers through /v3/chat streamed
// (the sub-agents' calls in its stream under their own bot ids, their
// turns nested under Lead's tool spans in the trace) and polled (after
// handing the conversation to Billing, which answers the next turn), the
// OpenAI route and a webhook channel; usage counts each bot's chats.
func handoffTogether(t *testing.T, c *chatSetup, h handoffBots) {
	model := map[string]any{"model_id": "fake"}
	researcher := c.bot(t, map[string]any{"name": "Scout", "prompt": "You find facts.", "model": model,
		"variables": []map[string]any{{"keyword": "city"}}})
	writer := c.bot(t, map[string]any{"name": "Scribe", "prompt": "You write.", "model": model})
	lead := c.bot(t, map[string]any{"name": "Lead", "prompt": "You are Lead.", "model": model,
		"sub_agents": []map[string]any{{"bot_id": researcher, "description": "finds facts"}, {"bot_id": writer, "description": "writes text"}},
		"handoffs":   []map[string]any{{"bot_id": h.billing, "description": "billing questions"}}})
	ask := `#call scout {"task":"#call setKeywordMemory {\"data\":[{\"keyword\":\"city\",\"value\":\"Oslo\"}]}"} ` +
		`#call scribe {"task":"a haiku"}`
	want := "tool said: tool said: saved: city; echo: a haiku"

	events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": lead, "user_id": "u9", "stream": true,
		"additional_messages": userMessage(ask)})
	done := events[len(events)-2].obj(t)
	conv, chat := str(done, "conversation_id"), str(done, "id")
	if bot, text := chatAnswer(t, c, conv, chat); bot != lead || text != want {
		t.Fatalf("streamed turn answered by bot %s %q; want Lead (%s) %q", bot, text, lead, want)
	}
	subCalls := map[string]bool{}
	for _, e := range events {
		if e.name != "conversation.message.completed" {
			continue
		}
		if m := e.obj(t); str(m, "type") == "function_call" {
			subCalls[str(m, "bot_id")] = true
		}
	}
	if !subCalls[researcher] || !subCalls[lead] {
		t.Errorf("function calls in Lead's stream came from bots %v; want Lead's and Scout's (%s)", subCalls, researcher)
	}
	checkSubAgentSpans(t, c.s.waitTrace(t, chat, 1), []string{"scout", "scribe"})

	// Polled: Lead hands the conversation to Billing, which answers the
	// next turn.
	polled := func(text string) (string, string) {
		started := c.s.call(t, "POST", "/v3/chat?conversation_id="+conv, bootstrapToken, map[string]any{"bot_id": lead, "user_id": "u9",
			"additional_messages": userMessage(text)}).must(t, 200)
		if st := str(pollChat(t, c.s, conv, str(started.data, "id")), "status"); st != "completed" {
			t.Fatalf("polled chat %q ended %s", text, st)
		}
		return chatAnswer(t, c, conv, str(started.data, "id"))
	}
	if bot, _ := polled("#call transfer_to_Billing {}"); bot != h.billing {
		t.Fatalf("the transfer's answer came from bot %s; want Billing (%s)", bot, h.billing)
	}
	if bot, text := polled("my invoice?"); bot != h.billing || text != "echo: my invoice?" {
		t.Fatalf("the turn after the transfer: bot %s %q; want Billing", bot, text)
	}

	oa := c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": lead,
		"messages": []map[string]any{{"role": "user", "content": ask}}}).must(t, 200)
	if got := oa.raw["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]; got != want {
		t.Errorf("/v1/chat/completions answered %v, want %q", got, want)
	}

	chID, path := webhookChannel(t, c.s, lead, map[string]any{})
	c.s.call(t, "POST", "/api/bots/"+lead+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{"1024", chID}}).must(t, 201)
	r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": "t1", "user_id": "dana", "text": ask})
	if r.status != 200 || str(r.body, "text") != want {
		t.Fatalf("the webhook channel answered %d %v; want %q", r.status, r.body, want)
	}

	rows := map[string]float64{}
	for _, it := range usageItems(t, c.s, "/api/usage?group_by=bot&workspace_id="+c.ws, bootstrapToken) {
		rows[str(it, "bot_id")] = it["chats"].(float64)
	}
	// Lead: the streamed turn, the two polled ones (a chat is its
	// conversation's bot's, whichever bot answered it), the OpenAI call and
	// the channel's; each sub-agent: once in each of the three asks.
	if rows[lead] != 5 || rows[researcher] != 3 || rows[writer] != 3 {
		t.Errorf("usage chats by bot = %v; want Lead %s 5, Scout %s 3, Scribe %s 3", rows, lead, researcher, writer)
	}
}

// checkSubAgentSpans: under each sub-agent's tool span of the turn's
// trace is that sub-agent's own turn, an invoke_agent span.
func checkSubAgentSpans(t *testing.T, tr map[string]any, tools []string) {
	t.Helper()
	root := items(t, tr, "runs")[0]["root"].(map[string]any)
	for _, name := range tools {
		tool := childNamed(t, root, "execute_tool "+name)
		var nested bool
		for _, n := range childNames(t, tool) {
			nested = nested || strings.HasPrefix(n, "invoke_agent")
		}
		if !nested {
			t.Errorf("tool span %q has children %v; want the sub-agent's invoke_agent span", name, childNames(t, tool))
		}
	}
}
