package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestChannelsWebhook runs the signed webhook channel end to end on both
// back ends: verified, stored once per event id, answered by the version
// published to the channel, in the response or signed at callback_url,
// and recorded in the deliveries and admin views.
func TestChannelsWebhook(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			botID := str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Support",
				"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
			syncID, syncPath := webhookChannel(t, c.s, botID, map[string]any{})
			t.Run("refused before publishing", func(t *testing.T) { webhookUnpublished(t, c, botID, syncID, syncPath) })
			c.s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{syncID}}).must(t, 201)
			t.Run("answer in the response, once", func(t *testing.T) { webhookSync(t, c, syncPath) })
			t.Run("bad signatures", func(t *testing.T) { webhookForged(t, c, botID, syncID, syncPath) })
			t.Run("separate end users", func(t *testing.T) { webhookPeople(t, c, botID, syncID, syncPath) })
			t.Run("callback_url", func(t *testing.T) { webhookCallback(t, c, botID) })
			t.Run("disabled and admin view", func(t *testing.T) { webhookAdmin(t, c, botID, syncID, syncPath) })
		})
	}
}

// modelCalls counts the model requests whose last message is text.
func modelCalls(llm *fakellm.Server, text string) int {
	n := 0
	for _, r := range llm.Requests() {
		if len(r.Messages) > 0 && r.Messages[len(r.Messages)-1].Content == text {
			n++
		}
	}
	return n
}

func webhookUnpublished(t *testing.T, c *chatSetup, botID, chID, path string) {
	r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": "e0", "user_id": "alice", "text": "hi"})
	if r.status != 403 || !strings.Contains(str(r.body, "msg"), "not published to the corresponding channel (channel "+chID+")") {
		t.Fatalf("event for an unpublished bot = %d %v; want 403 saying so", r.status, r.body)
	}
	if got := postEvent(t, c.s, "/channels/webhook/999999", webhookSecret, time.Now(), map[string]any{"event_id": "e0"}); got.status != 404 {
		t.Fatalf("unknown channel = %d %v; want 404", got.status, got.body)
	}
	if got := postEvent(t, c.s, "/channels/telegram/"+chID, webhookSecret, time.Now(), map[string]any{"event_id": "e0"}); got.status != 404 {
		t.Fatalf("channel under another kind = %d %v; want 404", got.status, got.body)
	}
	if d := deliveries(t, c.s, botID, chID); len(d) != 0 {
		t.Fatalf("refused events were stored: %v", d)
	}
}

func webhookSync(t *testing.T, c *chatSetup, path string) {
	ev := map[string]any{"event_id": "evt-1", "user_id": "alice", "text": "hello there"}
	first := postEvent(t, c.s, path, webhookSecret, time.Now(), ev)
	if first.status != 200 || str(first.body, "text") != "echo: hello there" || str(first.body, "event_id") != "evt-1" ||
		str(first.body, "chat_id") == "" || str(first.body, "conversation_id") == "" {
		t.Fatalf("signed event = %d %v; want 200 with the model's answer", first.status, first.body)
	}
	again := postEvent(t, c.s, path, webhookSecret, time.Now(), ev)
	if again.status != 200 || str(again.body, "chat_id") != str(first.body, "chat_id") || str(again.body, "text") != "echo: hello there" {
		t.Fatalf("retried event = %d %v; want the stored answer %v", again.status, again.body, first.body)
	}
	if n := modelCalls(c.llm, "hello there"); n != 1 {
		t.Fatalf("the model was called %d times for one event sent twice", n)
	}
	bad := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": "evt-x", "user_id": "alice"})
	if bad.status != 400 || !strings.Contains(str(bad.body, "msg"), "text") {
		t.Fatalf("event without text = %d %v; want 400 naming text", bad.status, bad.body)
	}
}

func webhookForged(t *testing.T, c *chatSetup, botID, chID, path string) {
	before := len(deliveries(t, c.s, botID, chID))
	cases := []struct {
		name   string
		secret string
		when   time.Time
		want   string
	}{
		{"wrong secret", "whsec-forged-0123456789abcdef", time.Now(), "does not match"},
		{"six minutes old", webhookSecret, time.Now().Add(-6 * time.Minute), "more than 5 minutes"},
	}
	for _, tc := range cases {
		r := postEvent(t, c.s, path, tc.secret, tc.when, map[string]any{"event_id": "forged-" + tc.name, "user_id": "mallory", "text": "forged"})
		if r.status != 401 || !strings.Contains(str(r.body, "msg"), tc.want) {
			t.Fatalf("%s = %d %v; want 401 saying %q", tc.name, r.status, r.body, tc.want)
		}
	}
	if after := len(deliveries(t, c.s, botID, chID)); after != before || modelCalls(c.llm, "forged") != 0 {
		t.Fatalf("forged events were stored or answered: %d -> %d deliveries", before, after)
	}
}

func webhookPeople(t *testing.T, c *chatSetup, botID, chID, path string) {
	say := func(id, user, text string) map[string]any {
		r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": id, "user_id": user, "text": text})
		if r.status != 200 {
			t.Fatalf("%s: %d %v", id, r.status, r.body)
		}
		return r.body
	}
	a1 := say("p-1", "ann", "my name is Ann")
	b1 := say("p-2", "bob", "my name is Bob")
	a2 := say("p-3", "ann", "who am I?")
	if str(a1, "conversation_id") != str(a2, "conversation_id") || str(a1, "conversation_id") == str(b1, "conversation_id") {
		t.Fatalf("conversations: ann %s, %s; bob %s; want ann's two in one, bob's apart",
			str(a1, "conversation_id"), str(a2, "conversation_id"), str(b1, "conversation_id"))
	}
	var history []string
	for _, r := range c.llm.Requests() {
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Content == "who am I?" {
			for _, m := range r.Messages {
				history = append(history, m.Content)
			}
		}
	}
	joined := strings.Join(history, "|")
	if !strings.Contains(joined, "my name is Ann") || strings.Contains(joined, "my name is Bob") {
		t.Fatalf("ann's second turn saw %q; want her own history only", joined)
	}
	// Ann's conversation deleted through the API: her next message opens a new one.
	c.s.call(t, "DELETE", "/v1/conversations/"+str(a1, "conversation_id"), bootstrapToken, nil).must(t, 200)
	a3 := say("p-4", "ann", "back again")
	a4 := say("p-5", "ann", "still here")
	if str(a3, "conversation_id") == str(a1, "conversation_id") || str(a3, "conversation_id") != str(a4, "conversation_id") || str(a3, "text") != "echo: back again" {
		t.Fatalf("after deleting ann's conversation: %v then %v; want one new conversation", a3, a4)
	}
	users := map[string]string{}
	for _, d := range deliveries(t, c.s, botID, chID) {
		users[str(d, "event_id")] = str(d, "end_user")
	}
	if users["p-1"] != "webhook:ann" || users["p-2"] != "webhook:bob" || users["p-3"] != "webhook:ann" {
		t.Fatalf("end users = %v; want webhook:ann and webhook:bob", users)
	}
}

func webhookCallback(t *testing.T, c *chatSetup, botID string) {
	sink := newCallbackSink(t, "cb-2")
	chID, path := webhookChannel(t, c.s, botID, map[string]any{"callback_url": sink.srv.URL + "/answers"})
	c.s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{chID}}).must(t, 201)
	for _, id := range []string{"cb-1", "cb-2"} {
		r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": id, "user_id": "carol", "text": "ping " + id})
		if r.status != 202 || str(r.body, "event_id") != id {
			t.Fatalf("event with callback_url = %d %v; want 202 at once", r.status, r.body)
		}
	}
	for _, tc := range []struct {
		id    string
		posts int
	}{{"cb-1", 1}, {"cb-2", 2}} {
		posts := sink.wait(t, tc.id, tc.posts)
		last := posts[len(posts)-1]
		if err := channelapp.Verify(webhookSecret, last.signature, last.body, time.Now()); err != nil {
			t.Fatalf("callback of %s is not signed with the channel's secret: %v", tc.id, err)
		}
		var a channelapp.WebhookAnswer
		_ = json.Unmarshal(last.body, &a)
		if a.Text != "echo: ping "+tc.id || a.ChatID == "" || a.ChatID == "0" {
			t.Fatalf("callback of %s = %s", tc.id, last.body)
		}
		d := waitDelivery(t, c.s, botID, chID, tc.id, "delivered")
		if d["attempts"] != float64(tc.posts) || str(d, "chat_id") != a.ChatID || str(d, "end_user") != "webhook:carol" {
			t.Fatalf("delivery of %s = %v; want delivered after %d attempts", tc.id, d, tc.posts)
		}
	}
}

func webhookAdmin(t *testing.T, c *chatSetup, botID, chID, path string) {
	list := items(t, c.s.call(t, "GET", "/api/admin/channels", bootstrapToken, nil).must(t, 200).data, "channels")
	var row map[string]any
	for _, ch := range list {
		if str(ch, "id") == chID {
			row = ch
		}
	}
	if row == nil || row["events"] != float64(len(deliveries(t, c.s, botID, chID))) || row["failures"] != float64(0) || str(row, "kind") != "webhook" {
		t.Fatalf("admin view of channel %s = %v in %v", chID, row, list)
	}
	c.s.call(t, "PATCH", "/api/admin/channels/"+chID, bootstrapToken, map[string]any{"status": "paused"}).fails(t, 400, 4000, "status")
	c.s.call(t, "PATCH", "/api/admin/channels/"+chID, bootstrapToken, map[string]any{"status": "disabled"}).must(t, 200)
	r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": "off-1", "user_id": "ann", "text": "anyone?"})
	if r.status != 409 || !strings.Contains(str(r.body, "msg"), "is disabled") {
		t.Fatalf("event on a disabled channel = %d %v; want 409 saying so", r.status, r.body)
	}
	if got := str(c.s.call(t, "GET", "/api/bots/"+botID+"/channels/"+chID, bootstrapToken, nil).must(t, 200).data, "status"); got != "disabled" {
		t.Fatalf("channel status after the admin disabled it = %q", got)
	}
	if modelCalls(c.llm, "anyone?") != 0 {
		t.Fatal("an event on a disabled channel reached the model")
	}
}
