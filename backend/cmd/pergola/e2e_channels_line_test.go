package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/line/linefake"
)

// lineSetup is a server reachable at its PERGOLA_PUBLIC_URL, a bot
// published to a LINE channel, and the fake LINE.
type lineSetup struct {
	*chatSetup
	fake            *linefake.Server
	botID, id, hook string
}

const lineSecret = "line-e2e-channel-secret-0042"

func newLineSetup(t *testing.T, b backend) *lineSetup {
	t.Helper()
	addr := freeAddr(t)
	c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1",
		"PERGOLA_ADDR": addr, "PERGOLA_PUBLIC_URL": "http://" + addr}))
	l := &lineSetup{chatSetup: c, fake: linefake.New(t, linefake.Bot{Token: "line-e2e-access-token", Secret: lineSecret, UserID: "Ubot42"})}
	l.fake.AllowHTTPWebhook = true // the test server has no TLS
	l.botID = str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "LINE bot",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	ch := c.s.call(t, "POST", "/api/bots/"+l.botID+"/channels", bootstrapToken, map[string]any{"kind": "line", "settings": map[string]any{
		"channel_secret": lineSecret, "channel_access_token": "line-e2e-access-token", "api_base_url": l.fake.URL}}).must(t, 201).data
	l.id, l.hook = str(ch, "id"), str(ch, "webhook_url")
	c.s.call(t, "POST", "/api/bots/"+l.botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{l.id}}).must(t, 201)
	return l
}

// send posts a webhook request of events signed with signature ("" for
// the channel's own) and returns the status.
func (l *lineSetup) send(t *testing.T, signature string, events ...map[string]any) int {
	t.Helper()
	status, raw, err := l.fake.Send(context.Background(), http.DefaultClient, l.hook, l.fake.Body(events...), signature)
	if err != nil {
		t.Fatal(err)
	}
	if status != 200 && signature == "" {
		t.Fatalf("signed request answered %d %s", status, raw)
	}
	return status
}

// sentTo is what the fake LINE accepted for a user, group or room.
func (l *lineSetup) sentTo(to string) []linefake.Sent {
	var out []linefake.Sent
	for _, s := range l.fake.Sent() {
		if s.To == to {
			out = append(out, s)
		}
	}
	return out
}

// TestChannelsLINE runs a LINE channel end to end on both back ends
// against a local fake of the Messaging API: the webhook endpoint set on
// creation, every request's X-Line-Signature verified, each message
// answered once with its reply token (pushed when the token expired),
// groups answered only when the bot is mentioned.
func TestChannelsLINE(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := newLineSetup(t, b)
			if got := l.fake.Webhook(); got != l.hook {
				t.Fatalf("webhook endpoint registered %q; want %q", got, l.hook)
			}
			t.Run("verify, answer once, refuse forgeries", func(t *testing.T) { lineAnswersOnce(t, l) })
			t.Run("groups and expired reply tokens", func(t *testing.T) { lineGroupsAndPush(t, l) })
		})
	}
}

func lineAnswersOnce(t *testing.T, l *lineSetup) {
	l.send(t, "") // the console's "Verify": no events
	dm := l.fake.Event(linefake.Message{EventID: "01LINEE2E0001", UserID: "Uann", Text: "hello line"})
	l.send(t, "", dm)
	waitFor(t, "the answer to Uann", func() bool { return len(l.sentTo("Uann")) > 0 })
	if got := l.sentTo("Uann"); got[0].Via != "reply" || len(got[0].Texts) != 1 || got[0].Texts[0] != "echo: hello line" {
		t.Fatalf("sent %+v; want the model's answer as a reply", got)
	}
	forged := l.fake.Event(linefake.Message{EventID: "01LINEE2E0002", UserID: "Ubob", Text: "forged line"})
	if status := l.send(t, linefake.Signature("not-the-channel-secret", l.fake.Body(forged)), forged); status != 401 {
		t.Fatalf("forged signature answered %d, want 401", status)
	}
	l.send(t, "", dm) // LINE redelivers the same webhookEventId
	waitDelivery(t, l.s, l.botID, l.id, "01LINEE2E0001", "delivered")
	if n, sent := modelCalls(l.llm, "hello line"), len(l.sentTo("Uann")); n != 1 || sent != 1 {
		t.Fatalf("event sent twice: model called %d times, %d answers sent; want 1 and 1", n, sent)
	}
	if len(l.sentTo("Ubob")) != 0 || modelCalls(l.llm, "forged line") != 0 {
		t.Fatal("a forged request was answered")
	}
}

func lineGroupsAndPush(t *testing.T, l *lineSetup) {
	chatter := l.fake.Event(linefake.Message{EventID: "01LINEE2E0003", UserID: "Uann", GroupID: "Cgroup", Text: "group chatter"})
	mention := l.fake.Event(linefake.Message{EventID: "01LINEE2E0004", UserID: "Uann", GroupID: "Cgroup", Text: "hello group", Mention: true})
	l.fake.ExpireReplyTokens() // the answer comes after the token's minute
	l.send(t, "", chatter, mention)
	waitDelivery(t, l.s, l.botID, l.id, "01LINEE2E0004", "delivered")
	if got := l.sentTo("Cgroup"); len(got) != 1 || got[0].Via != "push" || got[0].Texts[0] != "echo: hello group" {
		t.Fatalf("group got %+v; want only the answer to the mention, pushed", got)
	}
	if modelCalls(l.llm, "group chatter") != 0 || modelCalls(l.llm, "hello line") != 1 {
		t.Fatal("a group message not mentioning the bot, or the redelivered direct message, was answered")
	}
	seen := map[string]int{}
	for _, d := range deliveries(t, l.s, l.botID, l.id) {
		seen[str(d, "event_id")]++
	}
	if seen["01LINEE2E0001"] != 1 || seen["01LINEE2E0004"] != 1 || len(seen) != 2 {
		t.Fatalf("deliveries by event = %v; want the direct message and the mention once each", seen)
	}
}
