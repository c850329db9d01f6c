package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
	"github.com/pergola-ai/pergola/infra/channels/line/linefake"
	"github.com/pergola-ai/pergola/infra/channels/slack/slackfake"
	"github.com/pergola-ai/pergola/infra/channels/telegram/telegramfake"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// channelsSetup is a server with a fake model, and where its database is,
// so tests can read the stored rows themselves.
type channelsSetup struct {
	s      *testServer
	ws     string
	dbKind string // "sqlite" or "mysql"
	dbDSN  string
	public string // PERGOLA_PUBLIC_URL, or "" for the request's own base
	tg     *telegramfake.Server
	sl     *slackfake.Server
	ln     *linefake.Server
	dc     *discordfake.Server
	fs     *feishufake.Server // Feishu and Lark
}

// The tokens the platform fakes of channelsSetup accept.
const (
	fakeTelegramToken = "123456:AAH-telegram-token-9f8e"
	fakeSlackToken    = "xoxb-original-token-1111"
)

// platformBase is the api_base_url pointing a kind at its fake ("" for
// kinds without one).
func (c *channelsSetup) platformBase(kind string) string {
	switch kind {
	case "telegram":
		return c.tg.URL
	case "slack":
		return c.sl.APIURL()
	case "line":
		return c.ln.URL
	case "discord":
		return c.dc.APIURL()
	case "feishu", "lark":
		return c.fs.URL
	}
	return ""
}

// withPlatform is settings with api_base_url pointing at the kind's fake.
func (c *channelsSetup) withPlatform(kind string, settings map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range settings {
		out[k] = v
	}
	if base := c.platformBase(kind); base != "" {
		out["api_base_url"] = base
	}
	return out
}

func newChannelsSetup(t *testing.T, b backend) *channelsSetup {
	t.Helper()
	llm := fakellm.New()
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	env := b.env(t)
	env["PERGOLA_EGRESS_ALLOW"] = "127.0.0.1" // the platform fakes
	c := &channelsSetup{dbKind: "mysql", dbDSN: env["PERGOLA_DB_DSN"],
		tg: telegramfake.New(t, telegramfake.Bot{ID: 123456, Token: fakeTelegramToken, Username: "pergola_test_bot"}),
		sl: slackfake.New(t, slackfake.Bot{Token: fakeSlackToken, UserID: "UBOT1", BotID: "BBOT1", TeamID: "T1"}),
		ln: linefake.New(t, linefake.Bot{Token: "line-access-token-000002", Secret: "line-channel-secret-01", UserID: "Ubot1"}),
		dc: discordfake.New(t, discordfake.App{ApplicationID: "1234567890", BotToken: "MTIz.discord-bot-token.xyzw", BotUserID: "1234567890"}),
		fs: feishufake.New(t, feishufake.App{ID: "cli_a1b2", Secret: "feishu-app-secret-0001"}, feishufake.App{ID: "cli_c3d4", Secret: "lark-app-secret-000001"})}
	if c.dbDSN == "" { // SQLite: also the public URL, so both ways of building webhook URLs are seen
		dir := t.TempDir()
		env["PERGOLA_DATA_DIR"], env["PERGOLA_PUBLIC_URL"] = dir, "https://bots.example.com/"
		c.dbKind, c.dbDSN, c.public = "sqlite", filepath.Join(dir, "pergola.db"), "https://bots.example.com"
	}
	c.s = startServer(t, env)
	c.s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{
		"id": "fake", "provider": "openai", "base_url": url, "api_key": "k", "model": "fake",
		"capabilities": map[string]any{"tools": true},
	}).must(t, 201)
	c.ws = str(c.s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Channels"}).must(t, 201).data, "id")
	return c
}

// bot creates an unpublished bot on the fake model.
func (c *channelsSetup) bot(t *testing.T, name string) string {
	t.Helper()
	return str(c.s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": name,
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
}

// storedRow reads a channel's settings and secrets columns as stored.
func (c *channelsSetup) storedRow(t *testing.T, id string) (settings, secrets string) {
	t.Helper()
	db, err := sql.Open(c.dbKind, c.dbDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("SELECT settings, secrets FROM channels WHERE id = ?", id).Scan(&settings, &secrets); err != nil {
		t.Fatalf("read channel %s: %v", id, err)
	}
	return settings, secrets
}

// channelKinds are valid settings of every kind, with the secrets among them.
var channelKinds = []struct {
	kind     string
	settings map[string]any
	secrets  []string
}{
	{"webhook", map[string]any{"secret": "whsec-0123456789abcdef", "callback_url": "https://crm.example.com/hook"}, []string{"secret"}},
	{"telegram", map[string]any{"bot_token": fakeTelegramToken, "secret_token": "tg_secret-token-42"}, []string{"bot_token", "secret_token"}},
	{"slack", map[string]any{"bot_token": fakeSlackToken, "signing_secret": "8f742231b10e8888abcd"}, []string{"bot_token", "signing_secret"}},
	{"discord", map[string]any{"application_id": "1234567890", "public_key": strings.Repeat("ab", 32), "bot_token": "MTIz.discord-bot-token.xyzw"}, []string{"bot_token"}},
	{"feishu", map[string]any{"app_id": "cli_a1b2", "app_secret": "feishu-app-secret-0001", "verification_token": "feishu-verify-token-0002", "encrypt_key": "feishu-encrypt-key-0003"},
		[]string{"app_secret", "verification_token", "encrypt_key"}},
	{"lark", map[string]any{"app_id": "cli_c3d4", "app_secret": "lark-app-secret-000001", "verification_token": "lark-verify-token-0002"}, []string{"app_secret", "verification_token"}},
	{"line", map[string]any{"channel_secret": "line-channel-secret-01", "channel_access_token": "line-access-token-000002"}, []string{"channel_secret", "channel_access_token"}},
	{"web", map[string]any{"allowed_origins": []string{"https://shop.example.com", "http://localhost:3000"}, "end_user_secret": "web-end-user-secret-01"}, []string{"end_user_secret"}},
}

var defaultAPIBase = map[string]string{"telegram": "https://api.telegram.org", "slack": "https://slack.com/api",
	"discord": "https://discord.com/api/v10", "feishu": "https://open.feishu.cn", "lark": "https://open.larksuite.com", "line": "https://api.line.me"}

// TestChannelsE2E covers the channels of a bot on both back ends: every
// kind created with its settings checked, secrets masked in answers and
// sealed in the database, the whole lifecycle, isolation between
// workspaces, and publishing enforced per connector.
func TestChannelsE2E(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChannelsSetup(t, b)
			t.Run("every kind, secrets masked and sealed", func(t *testing.T) { channelsEveryKind(t, c) })
			t.Run("bad settings name the field", func(t *testing.T) { channelsBadInput(t, c) })
			t.Run("get, patch, disable, delete", func(t *testing.T) { channelsLifecycle(t, c) })
			t.Run("isolation and roles", func(t *testing.T) { channelsIsolation(t, c) })
			t.Run("publishing is enforced", func(t *testing.T) { channelsPublishing(t, c) })
		})
	}
}

func channelsEveryKind(t *testing.T, c *channelsSetup) {
	botID := c.bot(t, "Every kind")
	base := c.public
	if base == "" {
		base = c.s.base
	}
	for _, k := range channelKinds {
		got := c.s.call(t, "POST", "/api/bots/"+botID+"/channels", bootstrapToken, map[string]any{"kind": k.kind, "settings": c.withPlatform(k.kind, k.settings)}).must(t, 201).data
		id := str(got, "id")
		if str(got, "kind") != k.kind || str(got, "name") != k.kind || str(got, "status") != "active" || got["published_version"] != float64(0) {
			t.Errorf("%s: created %v", k.kind, got)
		}
		want, page := base+"/channels/"+k.kind+"/"+id, ""
		if k.kind == "web" {
			want, page = "", base+"/chat/"+id // a web chat is a page, it takes no platform events
		}
		if str(got, "webhook_url") != want || str(got, "chat_url") != page {
			t.Errorf("%s: webhook_url %q, chat_url %q; want %q, %q", k.kind, str(got, "webhook_url"), str(got, "chat_url"), want, page)
		}
		settings := got["settings"].(map[string]any)
		def := defaultAPIBase[k.kind]
		if fake := c.platformBase(k.kind); fake != "" {
			def = fake // checked against its fake on creation
		}
		if def != "" && str(settings, "api_base_url") != def {
			t.Errorf("%s: api_base_url = %v, want %s", k.kind, settings["api_base_url"], def)
		}
		storedSettings, storedSecrets := c.storedRow(t, id)
		for _, name := range k.secrets {
			plain := k.settings[name].(string)
			if want := "••••" + plain[len(plain)-4:]; str(settings, name) != want {
				t.Errorf("%s: %s answered as %q, want the mask %q", k.kind, name, settings[name], want)
			}
			if strings.Contains(storedSettings+storedSecrets, plain) || !strings.HasPrefix(storedSecrets, "v1:") {
				t.Errorf("%s: %s is readable in the database: settings %q secrets %q", k.kind, name, storedSettings, storedSecrets)
			}
		}
	}
	list := items(t, c.s.call(t, "GET", "/api/bots/"+botID+"/channels", bootstrapToken, nil).must(t, 200).data, "channels")
	if len(list) != len(channelKinds) {
		t.Fatalf("listed %d channels, want %d", len(list), len(channelKinds))
	}
	for i, ch := range list {
		if str(ch, "kind") != channelKinds[i].kind || !strings.HasPrefix(str(ch["settings"].(map[string]any), channelKinds[i].secrets[0]), "••••") {
			t.Errorf("list item %d = %v; want kind %s, secrets masked", i, ch, channelKinds[i].kind)
		}
	}
}
