package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
)

// discordSetup is a server, a bot published to a Discord channel, and
// the fake Discord the channel talks to.
type discordSetup struct {
	*chatSetup
	botID, chID, url string
	dc               *discordfake.Server
}

func newDiscordSetup(t *testing.T, b backend) *discordSetup {
	t.Helper()
	c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
	d := &discordSetup{chatSetup: c, dc: discordfake.New(t, discordfake.App{ApplicationID: "1200000000000000042",
		BotToken: "MTIwMDAw.discord-e2e.bot-token-0042", BotUserID: "1200000000000000043"})}
	d.botID = str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Discord",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	ch := c.s.call(t, "POST", "/api/bots/"+d.botID+"/channels", bootstrapToken, map[string]any{"kind": "discord", "settings": map[string]any{
		"application_id": "1200000000000000042", "public_key": d.dc.PublicKey(),
		"bot_token": "MTIwMDAw.discord-e2e.bot-token-0042", "api_base_url": d.dc.APIURL()}}).must(t, 201).data
	d.chID, d.url = str(ch, "id"), str(ch, "webhook_url")
	c.s.call(t, "POST", "/api/bots/"+d.botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{d.chID}}).must(t, 201)
	return d
}

// send posts body to the channel with headers and returns the answer.
func (d *discordSetup) send(t *testing.T, body []byte, headers map[string]string) (int, map[string]any) {
	t.Helper()
	status, raw, err := discordfake.Post(context.Background(), http.DefaultClient, d.url, body, headers)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return status, out
}

// TestChannelsDiscord runs a Discord channel end to end on both back
// ends against a local fake of Discord: the bot token checked on
// creation, every interaction's Ed25519 signature verified, PING
// answered with PONG, a slash command deferred at once and answered by
// editing the original response (with follow-ups past 2,000
// characters), and a command delivered twice answered once.
func TestChannelsDiscord(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			d := newDiscordSetup(t, b)
			t.Run("refused bot token", func(t *testing.T) { discordRefusedToken(t, d) })
			t.Run("ping", func(t *testing.T) { discordPing(t, d) })
			t.Run("forged and stale signatures", func(t *testing.T) { discordForged(t, d) })
			t.Run("slash command answered once", func(t *testing.T) { discordCommand(t, d) })
			t.Run("long answer", func(t *testing.T) { discordLongAnswer(t, d) })
		})
	}
}

func discordRefusedToken(t *testing.T, d *discordSetup) {
	d.s.call(t, "POST", "/api/bots/"+d.botID+"/channels", bootstrapToken, map[string]any{"kind": "discord", "settings": map[string]any{
		"application_id": "1200000000000000042", "public_key": d.dc.PublicKey(), "bot_token": "not-the-bot-token", "api_base_url": d.dc.APIURL()}}).
		fails(t, 400, 4000, "settings.bot_token: was refused by Discord: discord GET /users/@me: 401: Unauthorized")
}

func discordPing(t *testing.T, d *discordSetup) {
	ping := d.dc.Ping()
	if status, out := d.send(t, ping, d.dc.Headers(ping, time.Now())); status != 200 || out["type"] != float64(1) {
		t.Fatalf("signed PING = %d %v; want 200 {\"type\":1}", status, out)
	}
}

func discordForged(t *testing.T, d *discordSetup) {
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	body, token := d.dc.Interaction(discordfake.Command{ID: "1300000000000000009", ChannelID: "1400000000000000001", UserID: "1500000000000000001", Question: "forged discord"})
	now := time.Now().Unix()
	forged := map[string]string{"X-Signature-Timestamp": strconv.FormatInt(now, 10), "X-Signature-Ed25519": discordfake.Sign(other, now, body)}
	if status, out := d.send(t, body, forged); status != 401 {
		t.Fatalf("forged signature = %d %v; want 401", status, out)
	}
	if status, out := d.send(t, body, d.dc.Headers(body, time.Now().Add(-6*time.Minute))); status != 401 {
		t.Fatalf("signature 6 minutes old = %d %v; want 401", status, out)
	}
	if status, out := d.send(t, body, nil); status != 401 {
		t.Fatalf("unsigned = %d %v; want 401", status, out)
	}
	if n := len(deliveries(t, d.s, d.botID, d.chID)); n != 0 || modelCalls(d.llm, "forged discord") != 0 || len(d.dc.MessagesOf(token)) != 0 {
		t.Fatalf("a forged interaction was taken: %d deliveries", n)
	}
}

func discordCommand(t *testing.T, d *discordSetup) {
	cmd := discordfake.Command{ID: "1300000000000000001", ChannelID: "1400000000000000001", UserID: "1500000000000000001", Question: "hello discord"}
	body, token := d.dc.Interaction(cmd)
	if status, out := d.send(t, body, d.dc.Headers(body, time.Now())); status != 200 || out["type"] != float64(5) {
		t.Fatalf("signed slash command = %d %v; want 200 {\"type\":5} (deferred)", status, out)
	}
	waitFor(t, "the edit of the original response", func() bool { return len(d.dc.MessagesOf(token)) > 0 })
	if status, _ := d.send(t, body, d.dc.Headers(body, time.Now())); status != 200 { // delivered again
		t.Fatalf("the same interaction again = %d; want 200", status)
	}
	waitDelivery(t, d.s, d.botID, d.chID, cmd.ID, "delivered")
	next, nextToken := d.dc.Interaction(discordfake.Command{ID: "1300000000000000002", ChannelID: "1400000000000000001", UserID: "1500000000000000001", Question: "hello again"})
	d.send(t, next, d.dc.Headers(next, time.Now()))
	waitDelivery(t, d.s, d.botID, d.chID, "1300000000000000002", "delivered")
	got := d.dc.MessagesOf(token)
	for _, m := range got {
		if m.Target != "@original" || m.ParseMentions == nil || len(m.ParseMentions) != 0 {
			t.Fatalf("answered %+v; want edits of the original response only, pinging no one", got)
		}
	}
	if last := got[len(got)-1]; last.Content != "echo: hello discord" {
		t.Fatalf("the original response reads %q; want the model's answer", last.Content)
	}
	again := d.dc.MessagesOf(nextToken)
	if n := modelCalls(d.llm, "hello discord"); n != 1 || len(again) == 0 || again[len(again)-1].Content != "echo: hello again" {
		t.Fatalf("model called %d times for the command sent twice; want 1 (and the next command answered)", n)
	}
}

func discordLongAnswer(t *testing.T, d *discordSetup) {
	question := strings.TrimSpace(strings.Repeat("word ", 500))
	body, token := d.dc.Interaction(discordfake.Command{ID: "1300000000000000003", ChannelID: "1400000000000000002", UserID: "1500000000000000002", Question: question})
	if status, _ := d.send(t, body, d.dc.Headers(body, time.Now())); status != 200 {
		t.Fatalf("long question = %d", status)
	}
	waitDelivery(t, d.s, d.botID, d.chID, "1300000000000000003", "delivered")
	// The original response is edited (while streaming, then with the
	// whole first part), and the rest follows as one follow-up.
	var original string
	var follow []string
	for _, m := range d.dc.MessagesOf(token) {
		switch {
		case len([]rune(m.Content)) > 2000:
			t.Fatalf("a message of %d characters; want at most 2,000", len([]rune(m.Content)))
		case m.Edit && len(follow) > 0:
			t.Fatalf("the original response was edited after a follow-up")
		case m.Edit:
			original = m.Content
		default:
			follow = append(follow, m.Content)
		}
	}
	if len(follow) != 1 || strings.Join(strings.Fields(original+" "+follow[0]), " ") != "echo: "+question {
		t.Fatalf("long answer came as the original and %d follow-ups; want the whole answer in the original and one follow-up", len(follow))
	}
}
