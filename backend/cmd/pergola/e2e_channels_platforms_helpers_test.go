package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/channels/slack/slackfake"
	"github.com/pergola-ai/pergola/infra/channels/telegram/telegramfake"
)

// platformsSetup is a server reachable at its PERGOLA_PUBLIC_URL (so
// Telegram's setWebhook registers a URL the fake can push to), a bot
// published to a Telegram and a Slack channel, and the two fakes.
type platformsSetup struct {
	*chatSetup
	botID        string
	tg           *telegramfake.Server
	sl           *slackfake.Server
	tgID, slID   string
	slURL        string
	signingKey   string
	secretToken  string
	tgWebhookURL string
}

const platformsBotUser = "pergola_e2e_bot"

func newPlatformsSetup(t *testing.T, b backend) *platformsSetup {
	t.Helper()
	addr := freeAddr(t)
	c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1",
		"PERGOLA_ADDR": addr, "PERGOLA_PUBLIC_URL": "http://" + addr}))
	p := &platformsSetup{chatSetup: c, signingKey: "slack-signing-secret-0042", secretToken: "tg-secret_token-0042",
		tg: telegramfake.New(t, telegramfake.Bot{ID: 777000, Token: "777000:AAH-e2e-telegram-token", Username: platformsBotUser}),
		sl: slackfake.New(t, slackfake.Bot{Token: "xoxb-e2e-slack-token-0042", UserID: "UBOT42", BotID: "BBOT42", TeamID: "T42"})}
	p.tg.AllowHTTPWebhook = true // the test server has no TLS
	p.botID = str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Platforms",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	tg := p.createChannel(t, "telegram", map[string]any{"bot_token": "777000:AAH-e2e-telegram-token", "secret_token": p.secretToken, "api_base_url": p.tg.URL})
	sl := p.createChannel(t, "slack", map[string]any{"bot_token": "xoxb-e2e-slack-token-0042", "signing_secret": p.signingKey, "api_base_url": p.sl.APIURL()})
	p.tgID, p.tgWebhookURL, p.slID, p.slURL = str(tg, "id"), str(tg, "webhook_url"), str(sl, "id"), str(sl, "webhook_url")
	c.s.call(t, "POST", "/api/bots/"+p.botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{p.tgID, p.slID}}).must(t, 201)
	return p
}

func (p *platformsSetup) createChannel(t *testing.T, kind string, settings map[string]any) map[string]any {
	t.Helper()
	return p.s.call(t, "POST", "/api/bots/"+p.botID+"/channels", bootstrapToken, map[string]any{"kind": kind, "settings": settings}).must(t, 201).data
}

// freeAddr is a 127.0.0.1 address no one listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// privateUpdate is a Telegram update of a person writing to the bot.
func privateUpdate(updateID, chatID int64, text string) map[string]any {
	return map[string]any{"update_id": updateID, "message": map[string]any{"message_id": updateID * 10, "text": text,
		"from": map[string]any{"id": chatID, "is_bot": false, "first_name": "Ann"},
		"chat": map[string]any{"id": chatID, "type": "private"}}}
}

// groupUpdate is a Telegram group message, mentioning the bot or not.
func groupUpdate(updateID, chatID int64, text string, mention bool) map[string]any {
	u := privateUpdate(updateID, 4242, text)
	m := u["message"].(map[string]any)
	m["chat"] = map[string]any{"id": chatID, "type": "group"}
	if mention {
		m["text"] = "@" + platformsBotUser + " " + text
		m["entities"] = []map[string]any{{"type": "mention", "offset": 0, "length": len(platformsBotUser) + 1}}
	}
	return u
}

// push posts a Telegram update to the channel's webhook as the fake
// does, with the secret it registered.
func (p *platformsSetup) push(t *testing.T, update map[string]any) {
	t.Helper()
	status, err := p.tg.Push(context.Background(), http.DefaultClient, update)
	if err != nil || status != 200 {
		t.Fatalf("push update %v: %d %v", update["update_id"], status, err)
	}
}

// postRaw posts body to url with headers and returns the status and body.
func postRaw(t *testing.T, url string, body []byte, headers map[string]string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// slackEvent is a signed-ready Events API callback of an event.
func slackEvent(eventID string, ev map[string]any) []byte {
	body, _ := json.Marshal(map[string]any{"type": "event_callback", "team_id": "T42", "api_app_id": "A42", "event_id": eventID,
		"event_time": time.Now().Unix(), "authorizations": []map[string]any{{"user_id": "UBOT42", "is_bot": true}}, "event": ev})
	return body
}

// slackHeaders signs body as Slack does, with extra headers.
func slackHeaders(secret string, body []byte, extra map[string]string) map[string]string {
	ts := time.Now().Unix()
	h := map[string]string{"X-Slack-Request-Timestamp": strconv.FormatInt(ts, 10), "X-Slack-Signature": slackfake.Sign(secret, ts, body)}
	for k, v := range extra {
		h[k] = v
	}
	return h
}
