package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/channels/discord"
	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
	"github.com/pergola-ai/pergola/infra/channels/feishu"
	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
	"github.com/pergola-ai/pergola/infra/channels/line"
	"github.com/pergola-ai/pergola/infra/channels/line/linefake"
	"github.com/pergola-ai/pergola/infra/channels/slack"
	"github.com/pergola-ai/pergola/infra/channels/slack/slackfake"
	"github.com/pergola-ai/pergola/infra/channels/telegram"
	"github.com/pergola-ai/pergola/infra/channels/telegram/telegramfake"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// failKind is one channel of the failure tests and its platform's fake:
// ask sends text as message n of a chat of its own (n picks the chat and
// the event id) and returns the event id; shown is what the platform
// shows in chat n, each of the bot's messages as it reads now; dialect
// converts an answer to the platform's text; down and up switch the
// platform off and on.
type failKind struct {
	name     string
	id       string
	ask      func(t *testing.T, n int, text string) string
	shown    func(n int) []string
	dialect  func(string) string
	down, up func()
}

// failSetup is one server with short retry settings, a model that fails
// on purpose, a bot published to a channel of every kind and the fakes.
type failSetup struct {
	*chatSetup
	botID string
	kinds []*failKind
}

// The model fails every question starting "down " and the first two
// tries of each question starting "flaky ", with a provider's words
// and address no end user may read.
const modelFailure = "upstream overloaded at http://10.0.0.7:8000/v1 (node path: [agent])"

func newFailSetup(t *testing.T, b backend) *failSetup {
	t.Helper()
	// The deliveries are polled in tight loops on seven channels at once;
	// the per-token rate limit is not what this test is about.
	c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1", "PERGOLA_RATE_LIMIT": "0",
		"PERGOLA_CHANNEL_TURN_ATTEMPTS": "3", "PERGOLA_CHANNEL_TURN_BACKOFF": "50ms",
		"PERGOLA_CHANNEL_SEND_ATTEMPTS": "5", "PERGOLA_CHANNEL_SEND_BACKOFF": "250ms", "PERGOLA_CHANNEL_RETRY_WINDOW": "30s"}))
	var mu sync.Mutex
	tries := map[string]int{}
	c.llm.When(func(r fakellm.Request) bool {
		return strings.HasPrefix(lastContent(r), "down ") || strings.HasPrefix(lastContent(r), "flaky ")
	}, func(r fakellm.Request) fakellm.Reply {
		mu.Lock()
		defer mu.Unlock()
		text := lastContent(r)
		if tries[text]++; strings.HasPrefix(text, "down ") || tries[text] <= 2 {
			return fakellm.Fail(503, modelFailure)
		}
		return fakellm.Text("echo: " + text)
	})
	f := &failSetup{chatSetup: c}
	f.botID = str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Failures",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	f.kinds = []*failKind{f.telegramKind(t), f.slackKind(t), f.discordKind(t), f.feishuKind(t, "feishu"), f.feishuKind(t, "lark"),
		f.lineKind(t), f.webhookKind(t)}
	var ids []string
	for _, k := range f.kinds {
		ids = append(ids, k.id)
	}
	c.s.call(t, "POST", "/api/bots/"+f.botID+"/publish", bootstrapToken, map[string]any{"connector_ids": ids}).must(t, 201)
	return f
}

// channel creates a channel of kind and returns its id and webhook URL.
func (f *failSetup) channel(t *testing.T, kind string, settings map[string]any) (string, string) {
	t.Helper()
	ch := f.s.call(t, "POST", "/api/bots/"+f.botID+"/channels", bootstrapToken, map[string]any{"kind": kind, "settings": settings}).must(t, 201).data
	return str(ch, "id"), str(ch, "webhook_url")
}

func wantStatus(t *testing.T, what string, status int, raw []byte, err error, want int) {
	t.Helper()
	if err != nil || status != want {
		t.Fatalf("%s = %d %s %v; want %d", what, status, raw, err, want)
	}
}

func (f *failSetup) telegramKind(t *testing.T) *failKind {
	const token, secret = "779000:AAH-failure-telegram-token", "tg-failure-secret_token-42"
	fake := telegramfake.New(t, telegramfake.Bot{ID: 779000, Token: token, Username: "pergola_failure_bot"})
	id, url := f.channel(t, "telegram", map[string]any{"bot_token": token, "secret_token": secret, "api_base_url": fake.URL})
	return &failKind{name: "telegram", id: id, dialect: telegram.HTML, down: func() { fake.Down(503) }, up: fake.Up,
		ask: func(t *testing.T, n int, text string) string {
			body, _ := json.Marshal(privateUpdate(int64(9100+n), int64(910+n), text))
			status, raw := postRaw(t, url, body, map[string]string{telegramSecretHeader: secret})
			wantStatus(t, "telegram update", status, raw, nil, 200)
			return fmt.Sprint(9100 + n)
		},
		shown: func(n int) []string {
			var out []string
			for _, m := range fake.Sent() {
				if now, _ := fake.Message(m.MessageID); m.ChatID == int64(910+n) {
					out = append(out, now.Text)
				}
			}
			return out
		}}
}

func (f *failSetup) slackKind(t *testing.T) *failKind {
	const token, signing = "xoxb-failure-slack-token-0042", "slack-failure-signing-secret"
	fake := slackfake.New(t, slackfake.Bot{Token: token, UserID: "UBOT91", BotID: "BBOT91", TeamID: "T91"})
	id, url := f.channel(t, "slack", map[string]any{"bot_token": token, "signing_secret": signing, "api_base_url": fake.APIURL()})
	return &failKind{name: "slack", id: id, dialect: slack.Mrkdwn, down: func() { fake.Down(503) }, up: fake.Up,
		ask: func(t *testing.T, n int, text string) string {
			body := slackEvent(fmt.Sprint("EvFail", n), map[string]any{"type": "message", "channel_type": "im", "user": "U9",
				"text": text, "ts": fmt.Sprintf("1700000091.%06d", n), "channel": fmt.Sprint("DF", n)})
			status, raw := postRaw(t, url, body, slackHeaders(signing, body, nil))
			wantStatus(t, "slack event", status, raw, nil, 200)
			return fmt.Sprint("EvFail", n)
		},
		shown: func(n int) []string {
			var out []string
			for _, m := range fake.Posted() {
				if now, _ := fake.Message(m.Channel, m.TS); m.Channel == fmt.Sprint("DF", n) {
					out = append(out, now.Text)
				}
			}
			return out
		}}
}

func (f *failSetup) discordKind(t *testing.T) *failKind {
	const app, token = "1200000000000000091", "MTIwMDAw.discord-failure.bot-token-0042"
	fake := discordfake.New(t, discordfake.App{ApplicationID: app, BotToken: token, BotUserID: "1200000000000000092"})
	id, url := f.channel(t, "discord", map[string]any{"application_id": app, "public_key": fake.PublicKey(), "bot_token": token,
		"api_base_url": fake.APIURL()})
	var mu sync.Mutex
	tokens := map[int]string{}
	return &failKind{name: "discord", id: id, dialect: discord.Markdown, down: func() { fake.Down(503) }, up: fake.Up,
		ask: func(t *testing.T, n int, text string) string {
			cmd := discordfake.Command{ID: fmt.Sprint(1300000000000009100 + n), ChannelID: "1400000000000000091",
				UserID: "1500000000000000091", Question: text}
			body, tok := fake.Interaction(cmd)
			mu.Lock()
			tokens[n] = tok
			mu.Unlock()
			status, raw, err := discordfake.Post(context.Background(), http.DefaultClient, url, body, fake.Headers(body, time.Now()))
			wantStatus(t, "discord interaction", status, raw, err, 200)
			return cmd.ID
		},
		shown: func(n int) []string {
			mu.Lock()
			tok := tokens[n]
			mu.Unlock()
			var original string
			var out []string
			for _, m := range fake.MessagesOf(tok) {
				if m.Edit && m.Target == "@original" {
					original = m.Content
				} else if !m.Edit {
					out = append(out, m.Content)
				}
			}
			if original != "" {
				out = append([]string{original}, out...)
			}
			return out
		}}
}

func (f *failSetup) feishuKind(t *testing.T, kind string) *failKind {
	app := feishufake.App{ID: "cli_failure" + kind, Secret: kind + "-failure-app-secret", BotOpenID: "ou_bot" + kind, BotName: "Pergola"}
	sub := feishufake.Subscription{VerificationToken: kind + "-failure-verification-42"}
	fake := feishufake.New(t, app)
	id, url := f.channel(t, kind, map[string]any{"app_id": app.ID, "app_secret": app.Secret,
		"verification_token": sub.VerificationToken, "api_base_url": fake.URL})
	return &failKind{name: kind, id: id, dialect: feishu.Plain, down: func() { fake.Down(503) }, up: fake.Up,
		ask: func(t *testing.T, n int, text string) string {
			ev := sub.MessageEvent(app.ID, feishufake.Message{EventID: fmt.Sprint("ev-fail-", n), SenderOpenID: "ou_ann",
				MessageID: fmt.Sprint("om_fail_", n), ChatID: fmt.Sprint("oc_fail_", n), ChatType: "p2p", Text: text})
			status, raw, err := sub.Push(context.Background(), http.DefaultClient, url, ev)
			wantStatus(t, kind+" event", status, raw, err, 200)
			return fmt.Sprint("ev-fail-", n)
		},
		shown: func(n int) []string {
			var out []string
			for _, r := range fake.Replies() {
				if now, _ := fake.Text(r.ID); r.MessageID == fmt.Sprint("om_fail_", n) {
					out = append(out, now)
				}
			}
			return out
		}}
}

func (f *failSetup) lineKind(t *testing.T) *failKind {
	const secret, token = "line-failure-channel-secret-42", "line-failure-access-token"
	fake := linefake.New(t, linefake.Bot{Token: token, Secret: secret, UserID: "Ubot91"})
	id, url := f.channel(t, "line", map[string]any{"channel_secret": secret, "channel_access_token": token, "api_base_url": fake.URL})
	return &failKind{name: "line", id: id, dialect: line.Plain, down: func() { fake.Down(503) }, up: fake.Up,
		ask: func(t *testing.T, n int, text string) string {
			ev := fake.Event(linefake.Message{EventID: fmt.Sprintf("01LINEFAIL%04d", n), UserID: fmt.Sprint("Ufail", n), Text: text})
			status, raw, err := fake.Send(context.Background(), http.DefaultClient, url, fake.Body(ev), "")
			wantStatus(t, "line event", status, raw, err, 200)
			return fmt.Sprintf("01LINEFAIL%04d", n)
		},
		shown: func(n int) []string {
			var out []string
			for _, s := range fake.Sent() {
				if s.To == fmt.Sprint("Ufail", n) {
					out = append(out, s.Texts...)
				}
			}
			return out
		}}
}

// webhookKind is a webhook channel with a callback_url that accepts the
// signed answers, or answers 503 while down.
func (f *failSetup) webhookKind(t *testing.T) *failKind {
	var down atomic.Bool
	var mu sync.Mutex
	texts := map[string][]string{} // accepted answers by event id
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a struct {
			EventID string `json:"event_id"`
			Text    string `json:"text"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &a)
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		mu.Lock()
		texts[a.EventID] = append(texts[a.EventID], a.Text)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(sink.Close)
	id, path := webhookChannel(t, f.s, f.botID, map[string]any{"callback_url": sink.URL})
	return &failKind{name: "webhook", id: id, dialect: func(s string) string { return s },
		down: func() { down.Store(true) }, up: func() { down.Store(false) },
		ask: func(t *testing.T, n int, text string) string {
			ev := map[string]any{"event_id": fmt.Sprint("wh-fail-", n), "user_id": fmt.Sprint("u", n), "text": text}
			if r := postEvent(t, f.s, path, webhookSecret, time.Now(), ev); r.status != 202 {
				t.Fatalf("webhook event = %d %v; want 202", r.status, r.body)
			}
			return fmt.Sprint("wh-fail-", n)
		},
		shown: func(n int) []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), texts[fmt.Sprint("wh-fail-", n)]...)
		}}
}
