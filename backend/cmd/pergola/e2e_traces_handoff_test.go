package main

import (
	"testing"
)

// TestHandoffTraceModels: after a handoff, the model calls of the bot
// taking over are traced as calls of its own model and settings, in GET
// /api/traces/{id} and in the OTLP export, not as calls of the model the
// turn started with; the next turn is the target's invoke_agent. Usage
// and /metrics agree per bot: both count the chats and their tokens for
// the chat's bot.
func TestHandoffTraceModels(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			otlp := newOTLPReceiver(t)
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_OTLP_ENDPOINT": otlp.URL}))
			s := c.s
			s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake2", "provider": "openai",
				"base_url": c.llm.BaseURL(), "api_key": "k", "model": "fake-two"}).must(t, 201)
			billing := str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Billing",
				"prompt": "You are Billing.", "model": map[string]any{"model_id": "fake2", "temperature": 0.25}}).must(t, 201).data, "id")
			s.call(t, "POST", "/api/bots/"+billing+"/publish", bootstrapToken, nil).must(t, 201)
			support := c.bot(t, map[string]any{"name": "Support", "prompt": "You are Support.",
				"model":    map[string]any{"model_id": "fake", "temperature": 0.75},
				"handoffs": []map[string]any{{"bot_id": billing}}})

			events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": support, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call transfer_to_Billing {"note":"refund"}`)})
			id := chatID(t, events)
			root := items(t, s.waitTrace(t, id, 1), "runs")[0]["root"].(map[string]any)
			if got := childNames(t, root); len(got) != 3 || got[0] != "chat fake" || got[1] != "execute_tool transfer_to_Billing" ||
				got[2] != "chat fake-two" {
				t.Fatalf("spans of the turn = %v; want Support's call, the transfer, Billing's call of its own model", got)
			}
			first, second := children(t, root)[0], children(t, root)[2]
			if attr(first, "gen_ai.request.temperature") != 0.75 || attr(second, "pergola.model.id") != "fake2" ||
				attr(second, "gen_ai.request.model") != "fake-two" || attr(second, "gen_ai.request.temperature") != 0.25 {
				t.Fatalf("model spans: Support's %v, Billing's %v", first["attributes"], second["attributes"])
			}

			if attr(root, "gen_ai.agent.id") != support || attr(root, "gen_ai.agent.name") != "Support" {
				t.Fatalf("the turn handing over = %v; want Support's", root["attributes"])
			}

			// The next turn is Billing's from its start: the agent's id,
			// name, version and model are all Billing's.
			conv := str(events[len(events)-2].obj(t), "conversation_id")
			next := chatID(t, s.stream(t, "/v3/chat?conversation_id="+conv, bootstrapToken, map[string]any{"bot_id": support,
				"user_id": "u1", "stream": true, "additional_messages": userMessage("when is my refund?")}))
			nextRoot := items(t, s.waitTrace(t, next, 1), "runs")[0]["root"].(map[string]any)
			if str(nextRoot, "name") != "invoke_agent Billing" || attr(nextRoot, "gen_ai.agent.id") != billing ||
				attr(nextRoot, "gen_ai.agent.version") != "1" || attr(nextRoot, "pergola.model.id") != "fake2" {
				t.Fatalf("the next turn = %s %v; want Billing's", str(nextRoot, "name"), nextRoot["attributes"])
			}

			handoffUsageAgrees(t, s, c.ws, support, billing)

			agent := otlp.waitSpan(t, "invoke_agent of chat "+id, func(sp otlpSpan) bool { return sp.attrs["pergola.chat.id"] == id })
			sp := otlp.waitSpan(t, "chat fake-two", func(sp otlpSpan) bool { return sp.name == "chat fake-two" && sp.traceID == agent.traceID })
			wantAttrs(t, "Billing's call", sp, map[string]string{"gen_ai.request.model": "fake-two", "pergola.model.id": "fake2",
				"gen_ai.request.temperature": "0.25", "gen_ai.operation.name": "chat"})
		})
	}
}

// handoffUsageAgrees compares /api/usage by bot with the bot counters of
// /metrics: the two chats and all their tokens are Support's (the chats'
// bot), none Billing's.
func handoffUsageAgrees(t *testing.T, s *testServer, ws, support, billing string) {
	t.Helper()
	rows := map[string]map[string]any{}
	for _, it := range usageItems(t, s, "/api/usage?group_by=bot&workspace_id="+ws, bootstrapToken) {
		rows[str(it, "bot_id")] = it
	}
	m := scrape(t, s)
	for _, bot := range []string{support, billing} {
		var got [3]float64
		if row := rows[bot]; row != nil {
			got = [3]float64{row["chats"].(float64), row["input_tokens"].(float64), row["output_tokens"].(float64)}
		}
		want := [3]float64{sum(m.series("pergola_chat_turns_total", "workspace", ws, "bot", bot)),
			sum(m.series("pergola_bot_tokens_total", "workspace", ws, "bot", bot, "kind", "input")),
			sum(m.series("pergola_bot_tokens_total", "workspace", ws, "bot", bot, "kind", "output"))}
		if got != want || (bot == support && (got[0] != 2 || got[1] == 0)) {
			t.Errorf("bot %s: /api/usage chats, input, output = %v; /metrics %v", bot, got, want)
		}
	}
}
