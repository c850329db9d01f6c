package main

import (
	"encoding/json"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/slack/slackfake"
	"github.com/pergola-ai/pergola/infra/channels/telegram/telegramfake"
)

// TestChannelsPlatforms runs Telegram and Slack channels end to end on
// both back ends against local fakes of the platforms: the webhook
// registered on creation, every request verified (secret header,
// signature), each update or event answered once by the published bot,
// where the platform expects the answer, and recorded in the deliveries.
func TestChannelsPlatforms(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			p := newPlatformsSetup(t, b)
			t.Run("telegram", func(t *testing.T) { telegramEndToEnd(t, p) })
			t.Run("telegram retries in the runtime only", func(t *testing.T) { telegramRetry(t, p) })
			t.Run("slack", func(t *testing.T) { slackEndToEnd(t, p) })
		})
	}
}

// tgSent is what the fake Telegram shows in chatID: each message sent
// there, as it reads after its edits (answers stream).
func (p *platformsSetup) tgSent(chatID int64) []telegramfake.Sent {
	var out []telegramfake.Sent
	for _, m := range p.tg.Sent() {
		if m.ChatID == chatID {
			now, _ := p.tg.Message(m.MessageID)
			out = append(out, now)
		}
	}
	return out
}

func telegramEndToEnd(t *testing.T, p *platformsSetup) {
	if hook := p.tg.Webhook(); hook.URL != p.tgWebhookURL || hook.SecretToken != p.secretToken {
		t.Fatalf("setWebhook registered %+v; want %s with the channel's secret_token", hook, p.tgWebhookURL)
	}
	p.push(t, privateUpdate(5001, 31, "hello telegram"))
	waitDelivery(t, p.s, p.botID, p.tgID, "5001", "delivered")
	if got := p.tgSent(31); got[0].Text != "echo: hello telegram" || got[0].ReplyTo != 50010 {
		t.Fatalf("sent %+v; want the model's answer replying to message 50010", got)
	}
	// A request without Telegram's secret is refused and stores nothing.
	forged, _ := json.Marshal(privateUpdate(5002, 32, "forged"))
	if status, _ := postRaw(t, p.tgWebhookURL, forged, map[string]string{"X-Telegram-Bot-Api-Secret-Token": "not-the-secret"}); status != 401 {
		t.Fatalf("wrong secret header answered %d, want 401", status)
	}
	p.push(t, privateUpdate(5001, 31, "hello telegram"))       // delivered again by Telegram
	p.push(t, groupUpdate(5003, -100, "group chatter", false)) // not addressed to the bot
	p.push(t, groupUpdate(5004, -100, "hello group", true))
	waitDelivery(t, p.s, p.botID, p.tgID, "5004", "delivered")
	waitDelivery(t, p.s, p.botID, p.tgID, "5001", "delivered")
	if g := p.tgSent(-100); len(g) != 1 || g[0].Text != "echo: hello group" {
		t.Fatalf("group got %+v; want only the answer to the mention", g)
	}
	if n, sent := modelCalls(p.llm, "hello telegram"), len(p.tgSent(31)); n != 1 || sent != 1 {
		t.Fatalf("update 5001 sent twice: model called %d times, %d answers sent; want 1 and 1", n, sent)
	}
	if len(p.tgSent(32)) != 0 || modelCalls(p.llm, "forged") != 0 || modelCalls(p.llm, "group chatter") != 0 {
		t.Fatal("a forged or unaddressed update was answered")
	}
	seen := map[string]int{}
	for _, d := range deliveries(t, p.s, p.botID, p.tgID) {
		seen[str(d, "event_id")]++
	}
	if seen["5001"] != 1 || seen["5004"] != 1 || seen["5002"]+seen["5003"] != 0 {
		t.Fatalf("deliveries by update = %v; want 5001 and 5004 once each, nothing else", seen)
	}
}

// telegramRetry: the platform's 429s are retried by the runtime after
// the retry_after they name — a streamed send that meets one is skipped,
// the final send waits and tries again — and the answer is sent exactly
// once.
func telegramRetry(t *testing.T, p *platformsSetup) {
	before := countCalls(p.tg.Calls(), "sendMessage")
	p.tg.FailNext(429, 2)
	p.tg.FailNext(429, 2)
	p.push(t, privateUpdate(5100, 33, "busy telegram"))
	d := waitDelivery(t, p.s, p.botID, p.tgID, "5100", "delivered")
	if n, _ := d["attempts"].(float64); n < 2 {
		t.Fatalf("delivery = %v; want at least 2 attempts (the final send refused with 429, then sent)", d)
	}
	if sent := p.tgSent(33); len(sent) != 1 || sent[0].Text != "echo: busy telegram" {
		t.Fatalf("sent %+v; want the answer once", sent)
	}
	if calls := countCalls(p.tg.Calls(), "sendMessage") - before; calls != 3 {
		t.Fatalf("sendMessage called %d times; want 3 (two refused with 429, one accepted)", calls)
	}
}

// countCalls counts the calls of a fake's journal named name.
func countCalls(calls []string, name string) int {
	n := 0
	for _, c := range calls {
		if c == name {
			n++
		}
	}
	return n
}

// slPosted is what the fake Slack shows in channel: each message posted
// there, as it reads after its updates (answers stream).
func (p *platformsSetup) slPosted(channel string) []slackfake.Posted {
	var out []slackfake.Posted
	for _, m := range p.sl.Posted() {
		if m.Channel == channel {
			now, _ := p.sl.Message(m.Channel, m.TS)
			out = append(out, now)
		}
	}
	return out
}

func slackEndToEnd(t *testing.T, p *platformsSetup) {
	challenge, _ := json.Marshal(map[string]any{"type": "url_verification", "token": "legacy", "challenge": "chal-3eZbrw1aB"})
	status, raw := postRaw(t, p.slURL, challenge, slackHeaders(p.signingKey, challenge, nil))
	var echoed map[string]any
	if _ = json.Unmarshal(raw, &echoed); status != 200 || str(echoed, "challenge") != "chal-3eZbrw1aB" {
		t.Fatalf("url_verification = %d %s; want the challenge echoed", status, raw)
	}
	mention := slackEvent("Ev42A", map[string]any{"type": "app_mention", "user": "U7", "text": "<@UBOT42> hello slack",
		"ts": "1700000000.000100", "channel": "C42", "event_ts": "1700000000.000100"})
	if status, raw := postRaw(t, p.slURL, mention, slackHeaders("forged-signing-secret", mention, nil)); status != 401 {
		t.Fatalf("forged signature = %d %s; want 401", status, raw)
	}
	if status, raw := postRaw(t, p.slURL, mention, slackHeaders(p.signingKey, mention, nil)); status != 200 {
		t.Fatalf("signed app_mention = %d %s; want 200", status, raw)
	}
	waitDelivery(t, p.s, p.botID, p.slID, "Ev42A", "delivered")
	if got := p.slPosted("C42"); got[0].ThreadTS != "1700000000.000100" || got[0].Text != "echo: hello slack" {
		t.Fatalf("posted %+v; want the model's answer in the mention's thread", got)
	}
	retry := slackHeaders(p.signingKey, mention, map[string]string{"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
	if status, raw := postRaw(t, p.slURL, mention, retry); status != 200 {
		t.Fatalf("retried event = %d %s; want 200", status, raw)
	}
	// A second, distinct event is answered: by then the retry was taken.
	dm := slackEvent("Ev42B", map[string]any{"type": "message", "channel_type": "im", "user": "U7", "text": "hello dm",
		"ts": "1700000001.000200", "channel": "D42"})
	if status, raw := postRaw(t, p.slURL, dm, slackHeaders(p.signingKey, dm, nil)); status != 200 {
		t.Fatalf("signed direct message = %d %s", status, raw)
	}
	waitDelivery(t, p.s, p.botID, p.slID, "Ev42B", "delivered")
	d := waitDelivery(t, p.s, p.botID, p.slID, "Ev42A", "delivered")
	if n, posted := modelCalls(p.llm, "hello slack"), len(p.slPosted("C42")); n != 1 || posted != 1 || d["attempts"] != float64(1) {
		t.Fatalf("event sent twice: model called %d times, %d answers posted, delivery %v; want one of each", n, posted, d)
	}
	if got := p.slPosted("D42"); len(got) != 1 || got[0].Text != "echo: hello dm" {
		t.Fatalf("direct message answered %+v", got)
	}
	if list := deliveries(t, p.s, p.botID, p.slID); len(list) != 2 {
		t.Fatalf("deliveries = %v; want the two events", list)
	}
}
