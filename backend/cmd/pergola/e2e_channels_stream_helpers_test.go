package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
	"github.com/pergola-ai/pergola/infra/channels/slack/slackfake"
	"github.com/pergola-ai/pergola/infra/channels/telegram/telegramfake"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// streamAnswer is what the slow model answers the streaming tests: long
// enough to stream for about three seconds, with characters each dialect
// escapes (&, <), none of Markdown's emphasis (so every prefix converts
// to a prefix of the whole).
const streamAnswer = "Streaming works: this answer grows in place while the model writes it, " +
	"at most one edit a second, & the final edit carries the whole text < nothing is lost, every word arrives."

// streamSetup is a server whose model writes slowly, a bot published to
// a Telegram, a Slack, a Discord and a Feishu channel, and the fakes of
// the four platforms.
type streamSetup struct {
	s     *testServer
	llm   *fakellm.Server
	botID string
	ids   map[string]string // channel id by kind
	urls  map[string]string // webhook URL by kind
	tg    *telegramfake.Server
	sl    *slackfake.Server
	dc    *discordfake.Server
	fs    *feishufake.Server
	fsSub feishufake.Subscription
}

const (
	streamTGToken = "778000:AAH-stream-telegram-token"
	streamSLToken = "xoxb-stream-slack-token-0042"
	streamSigning = "slack-stream-signing-secret-0042"
	streamTGSec   = "tg-stream-secret_token-0042"
	streamDCApp   = "1200000000000000077"
	streamDCToken = "MTIwMDAw.discord-stream.bot-token-0042"
)

func newStreamSetup(t *testing.T, b backend) *streamSetup {
	t.Helper()
	llm := fakellm.New(fakellm.WithChunkChars(3), fakellm.WithTokenLatency(50*time.Millisecond))
	llm.When(func(r fakellm.Request) bool { return lastContent(r) == "please stream" },
		func(fakellm.Request) fakellm.Reply { return fakellm.Text(streamAnswer) })
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	s := startServer(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}).env(t))
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai", "base_url": url,
		"api_key": "k", "model": "fake"}).must(t, 201)
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	st := &streamSetup{s: s, llm: llm, ids: map[string]string{}, urls: map[string]string{},
		tg:    telegramfake.New(t, telegramfake.Bot{ID: 778000, Token: streamTGToken, Username: "pergola_stream_bot"}),
		sl:    slackfake.New(t, slackfake.Bot{Token: streamSLToken, UserID: "UBOT77", BotID: "BBOT77", TeamID: "T77"}),
		dc:    discordfake.New(t, discordfake.App{ApplicationID: streamDCApp, BotToken: streamDCToken, BotUserID: "1200000000000000078"}),
		fs:    feishufake.New(t, feishufake.App{ID: "cli_streamfeishu1", Secret: "feishu-stream-secret", BotOpenID: "ou_botstream", BotName: "Pergola"}),
		fsSub: feishufake.Subscription{VerificationToken: "fs-stream-verification-42"}}
	st.botID = str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Streamer",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	st.createChannels(t)
	return st
}

// createChannels creates the four channels and publishes the bot to them.
func (st *streamSetup) createChannels(t *testing.T) {
	t.Helper()
	settings := map[string]map[string]any{
		"telegram": {"bot_token": streamTGToken, "secret_token": streamTGSec, "api_base_url": st.tg.URL},
		"slack":    {"bot_token": streamSLToken, "signing_secret": streamSigning, "api_base_url": st.sl.APIURL()},
		"discord": {"application_id": streamDCApp, "public_key": st.dc.PublicKey(), "bot_token": streamDCToken,
			"api_base_url": st.dc.APIURL()},
		"feishu": {"app_id": "cli_streamfeishu1", "app_secret": "feishu-stream-secret",
			"verification_token": st.fsSub.VerificationToken, "api_base_url": st.fs.URL},
	}
	var ids []string
	for kind, set := range settings {
		ch := st.s.call(t, "POST", "/api/bots/"+st.botID+"/channels", bootstrapToken, map[string]any{"kind": kind, "settings": set}).must(t, 201).data
		st.ids[kind], st.urls[kind] = str(ch, "id"), str(ch, "webhook_url")
		ids = append(ids, str(ch, "id"))
	}
	st.s.call(t, "POST", "/api/bots/"+st.botID+"/publish", bootstrapToken, map[string]any{"connector_ids": ids}).must(t, 201)
}

// ask sends "please stream" on each of the four platforms at once, as
// each platform sends a message, and returns Discord's interaction
// token.
func (st *streamSetup) ask(t *testing.T) string {
	t.Helper()
	tg, _ := json.Marshal(privateUpdate(7001, 71, "please stream"))
	if status, raw := postRaw(t, st.urls["telegram"], tg, map[string]string{telegramSecretHeader: streamTGSec}); status != 200 {
		t.Fatalf("telegram update = %d %s", status, raw)
	}
	sl := slackEvent("EvStream1", map[string]any{"type": "message", "channel_type": "im", "user": "U7", "text": "please stream",
		"ts": "1700000077.000100", "channel": "D77"})
	if status, raw := postRaw(t, st.urls["slack"], sl, slackHeaders(streamSigning, sl, nil)); status != 200 {
		t.Fatalf("slack event = %d %s", status, raw)
	}
	body, token := st.dc.Interaction(discordfake.Command{ID: "1300000000000000077", ChannelID: "1400000000000000077",
		UserID: "1500000000000000077", Question: "please stream"})
	if status, raw, err := discordfake.Post(context.Background(), http.DefaultClient, st.urls["discord"], body, st.dc.Headers(body, time.Now())); err != nil || status != 200 {
		t.Fatalf("discord interaction = %d %s %v", status, raw, err)
	}
	ev := st.fsSub.MessageEvent("cli_streamfeishu1", feishufake.Message{EventID: "ev-stream-1", SenderOpenID: "ou_ann",
		MessageID: "om_stream_1", ChatID: "oc_p2p_stream", ChatType: "p2p", Text: "please stream"})
	if status, raw, err := st.fsSub.Push(context.Background(), http.DefaultClient, st.urls["feishu"], ev); err != nil || status != 200 {
		t.Fatalf("feishu event = %d %s %v", status, raw, err)
	}
	return token
}

// telegramSecretHeader carries a Telegram channel's secret_token.
const telegramSecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// lastContent is the text of a model request's last message.
func lastContent(r fakellm.Request) string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// checkGrowth checks the texts a message showed, in order: the first
// post, then its edits. There must be at least one edit before the final
// text, each a strict prefix of it and longer than the one before, and
// the last must be the whole answer as the platform shows it.
func checkGrowth(t *testing.T, platform string, texts []string, whole string) {
	t.Helper()
	if len(texts) < 3 {
		t.Fatalf("%s: the message showed %q; want a first post, at least one edit while the model wrote, and the whole answer", platform, texts)
	}
	for i, text := range texts[:len(texts)-1] {
		if !strings.HasPrefix(whole, text) || text == whole || (i > 0 && len(text) <= len(texts[i-1])) {
			t.Fatalf("%s: text %d of %q is not a growing strict prefix of %q", platform, i, texts, whole)
		}
	}
	if last := texts[len(texts)-1]; last != whole {
		t.Fatalf("%s: the message ended as %q; want %q", platform, last, whole)
	}
	t.Logf("%s: posted with %d characters, then %d edits", platform, len(texts[0]), len(texts)-1)
}
