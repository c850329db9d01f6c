package main

import (
	"strings"
	"testing"
	"time"
)

// TestHandoffs runs handoffs end to end on both back ends: a bot's
// transfer tool hands the conversation to another bot, which answers the
// rest of the turn and the next turns (through /v3/chat streamed and
// polled, and a webhook channel) until it hands back; the OpenAI route
// follows a transfer within its turn; a transfer past
// PERGOLA_MAX_HANDOFFS or to a bot not published where the turn runs is
// refused with a message the model answers from.
func TestHandoffs(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_MAX_HANDOFFS": "2"}))
			h := newHandoffBots(t, c)
			t.Run("config", func(t *testing.T) { handoffConfig(t, c, h) })
			t.Run("coze chat", func(t *testing.T) { handoffCoze(t, c, h) })
			t.Run("limit and refusal", func(t *testing.T) { handoffRefusals(t, c, h) })
			t.Run("openai", func(t *testing.T) { handoffOpenAI(t, c, h) })
			t.Run("webhook channel", func(t *testing.T) { handoffWebhook(t, c, h) })
			t.Run("with sub-agents", func(t *testing.T) { handoffTogether(t, c, h) })
		})
	}
}

// handoffBots: Support hands off to Billing (which hands back) and to
// Sales, which is never published.
type handoffBots struct{ support, billing, sales string }

func newHandoffBots(t *testing.T, c *chatSetup) handoffBots {
	t.Helper()
	create := func(name string) string {
		return str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": name,
			"prompt": "You are " + name + ".", "model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	}
	h := handoffBots{billing: create("Billing"), sales: create("Sales")}
	h.support = c.bot(t, map[string]any{"name": "Support", "prompt": "You are Support.", "model": map[string]any{"model_id": "fake"},
		"handoffs": []map[string]any{{"bot_id": h.billing, "description": "billing questions"}, {"bot_id": h.sales}}})
	c.s.call(t, "PUT", "/api/bots/"+h.billing, bootstrapToken, map[string]any{"name": "Billing", "prompt": "You are Billing.",
		"model": map[string]any{"model_id": "fake"}, "handoffs": []map[string]any{{"bot_id": h.support}}}).must(t, 200)
	c.s.call(t, "POST", "/api/bots/"+h.billing+"/publish", bootstrapToken, nil).must(t, 201)
	return h
}

// activeBot is the conversation's active_bot_id as Coze's retrieve shows it.
func activeBot(t *testing.T, c *chatSetup, convID string) string {
	t.Helper()
	return str(c.s.call(t, "GET", "/v1/conversation/retrieve?conversation_id="+convID, bootstrapToken, nil).must(t, 200).data, "active_bot_id")
}

// lastPrompt is the system prompt of the model's latest request.
func lastPrompt(c *chatSetup) string {
	reqs := c.llm.Requests()
	return reqs[len(reqs)-1].Messages[0].Content
}

func handoffConfig(t *testing.T, c *chatSetup, h handoffBots) {
	put := func(handoffs []map[string]any) reply {
		return c.s.call(t, "PUT", "/api/bots/"+h.support, bootstrapToken, map[string]any{"name": "Support", "prompt": "You are Support.",
			"model": map[string]any{"model_id": "fake"}, "handoffs": handoffs})
	}
	put([]map[string]any{{"bot_id": h.support}}).fails(t, 400, 4000, "handoffs[0].bot_id: is this bot itself")
	put([]map[string]any{{"bot_id": "999999"}}).fails(t, 400, 4000, "bot 999999 is not a bot of this workspace")
	put([]map[string]any{{"bot_id": h.billing}, {"bot_id": h.billing}}).fails(t, 400, 4000, "handoffs[1].bot_id: bot "+h.billing+" is listed twice")
	got := items(t, c.s.call(t, "GET", "/api/bots/"+h.support, bootstrapToken, nil).must(t, 200).data["config"].(map[string]any), "handoffs")
	if len(got) != 2 || str(got[0], "bot_id") != h.billing || str(got[0], "name") != "Billing" || str(got[0], "description") != "billing questions" {
		t.Fatalf("handoffs = %v", got)
	}
}

// chatAnswer lists a chat's messages and returns its answer's bot and text.
func chatAnswer(t *testing.T, c *chatSetup, convID, chatID string) (string, string) {
	t.Helper()
	msgs := c.s.call(t, "GET", "/v3/chat/message/list?conversation_id="+convID+"&chat_id="+chatID, bootstrapToken, nil).must(t, 200)
	list, _ := msgs.raw["data"].([]any)
	for _, m := range list {
		if msg := m.(map[string]any); str(msg, "type") == "answer" {
			return str(msg, "bot_id"), str(msg, "content")
		}
	}
	t.Fatalf("chat %s has no answer: %v", chatID, list)
	return "", ""
}

// streamTurn runs one streamed /v3/chat turn of Support and returns the
// conversation and chat ids.
func streamTurn(t *testing.T, c *chatSetup, h handoffBots, convID, text string) (string, string) {
	t.Helper()
	path := "/v3/chat"
	if convID != "" {
		path += "?conversation_id=" + convID
	}
	events := c.s.stream(t, path, bootstrapToken, map[string]any{"bot_id": h.support, "user_id": "u1", "stream": true,
		"additional_messages": userMessage(text)})
	done := events[len(events)-2]
	if done.name != "conversation.chat.completed" {
		t.Fatalf("%q: the stream ended with %s %s", text, done.name, done.data)
	}
	return str(done.obj(t), "conversation_id"), str(done.obj(t), "id")
}

func handoffCoze(t *testing.T, c *chatSetup, h handoffBots) {
	conv, chat := streamTurn(t, c, h, "", `#call transfer_to_Billing {"note":"wants a refund"}`)
	if bot, text := chatAnswer(t, c, conv, chat); bot != h.billing || !strings.HasPrefix(text, "echo: #call transfer_to_Billing") {
		t.Fatalf("answer of the transfer = bot %s %q; want Billing (%s)", bot, text, h.billing)
	}
	if p := lastPrompt(c); !strings.Contains(p, "You are Billing.") || !strings.Contains(p, "wants a refund") {
		t.Fatalf("Billing's prompt = %q; want its persona and the note", p)
	}
	if got := activeBot(t, c, conv); got != h.billing {
		t.Fatalf("active_bot_id = %q; want Billing (%s)", got, h.billing)
	}

	// The next turn, polled, is Billing's.
	started := c.s.call(t, "POST", "/v3/chat?conversation_id="+conv, bootstrapToken, map[string]any{"bot_id": h.support, "user_id": "u1",
		"additional_messages": userMessage("when is my refund?")}).must(t, 200)
	if st := str(pollChat(t, c.s, conv, str(started.data, "id")), "status"); st != "completed" {
		t.Fatalf("polled chat %s", st)
	}
	if bot, text := chatAnswer(t, c, conv, str(started.data, "id")); bot != h.billing || text != "echo: when is my refund?" ||
		!strings.Contains(lastPrompt(c), "You are Billing.") {
		t.Fatalf("next turn answered by bot %s %q with prompt %q; want Billing", bot, text, lastPrompt(c))
	}

	// Billing hands back; Support answers that turn and the next.
	_, chat = streamTurn(t, c, h, conv, "#call transfer_to_Support {}")
	if bot, _ := chatAnswer(t, c, conv, chat); bot != h.support || !strings.Contains(lastPrompt(c), "You are Support.") {
		t.Fatalf("after handing back: answered by bot %s; want Support (%s)", bot, h.support)
	}
	if got := activeBot(t, c, conv); got != "" {
		t.Fatalf("active_bot_id after handing back = %q; want \"\"", got)
	}
	_, chat = streamTurn(t, c, h, conv, "thanks")
	if bot, text := chatAnswer(t, c, conv, chat); bot != h.support || text != "echo: thanks" {
		t.Fatalf("the turn after handing back = bot %s %q", bot, text)
	}
}

func handoffRefusals(t *testing.T, c *chatSetup, h handoffBots) {
	// Support -> Billing -> Support, then the third transfer is refused.
	conv, chat := streamTurn(t, c, h, "", "#call transfer_to_Billing {} #call transfer_to_Support {}")
	if bot, text := chatAnswer(t, c, conv, chat); bot != h.support || !strings.Contains(text, "reached its limit of 2 handoffs") {
		t.Fatalf("past the limit: bot %s %q; want Support telling the limit", bot, text)
	}
	conv, chat = streamTurn(t, c, h, "", "#call transfer_to_Sales {}")
	if bot, text := chatAnswer(t, c, conv, chat); bot != h.support || !strings.Contains(text, `cannot transfer to "Sales": it is not published to this channel`) {
		t.Fatalf("transfer to an unpublished bot: bot %s %q; want Support saying so", bot, text)
	}
}

func handoffOpenAI(t *testing.T, c *chatSetup, h handoffBots) {
	r := c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": h.support,
		"messages": []map[string]any{{"role": "user", "content": "#call transfer_to_Billing {}"}}})
	if r.status != 200 {
		t.Fatalf("/v1/chat/completions: %d %v", r.status, r.raw)
	}
	content := r.raw["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	if content != "echo: #call transfer_to_Billing {}" || !strings.Contains(lastPrompt(c), "You are Billing.") {
		t.Fatalf("OpenAI route answered %q with prompt %q; want Billing", content, lastPrompt(c))
	}
}

func handoffWebhook(t *testing.T, c *chatSetup, h handoffBots) {
	chID, path := webhookChannel(t, c.s, h.support, map[string]any{})
	c.s.call(t, "POST", "/api/bots/"+h.support+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{"1024", chID}}).must(t, 201)
	say := func(id, text string) string {
		r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": id, "user_id": "carol", "text": text})
		if r.status != 200 {
			t.Fatalf("%s: %d %v", id, r.status, r.body)
		}
		return str(r.body, "text")
	}
	if got := say("h1", "#call transfer_to_Billing {}"); !strings.Contains(got, `cannot transfer to "Billing": it is not published to this channel`) {
		t.Fatalf("transfer to a bot not published to the channel answered %q", got)
	}
	// A bot that Support hands off to may be published to Support's channel.
	c.s.call(t, "POST", "/api/bots/"+h.billing+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{"1024", chID}}).must(t, 201)
	c.s.call(t, "POST", "/api/bots/"+h.sales+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{chID}}).must(t, 201)
	if got := say("h2", "#call transfer_to_Billing {}"); got != "echo: #call transfer_to_Billing {}" || !strings.Contains(lastPrompt(c), "You are Billing.") {
		t.Fatalf("transfer on the channel answered %q with prompt %q; want Billing", got, lastPrompt(c))
	}
	if got := say("h3", "still there?"); got != "echo: still there?" || !strings.Contains(lastPrompt(c), "You are Billing.") {
		t.Fatalf("the channel's next message answered %q with prompt %q; want Billing", got, lastPrompt(c))
	}
}
