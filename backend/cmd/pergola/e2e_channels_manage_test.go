package main

import (
	"strings"
	"testing"
)

func channelsBadInput(t *testing.T, c *channelsSetup) {
	botID := c.bot(t, "Bad input")
	path := "/api/bots/" + botID + "/channels"
	tg := func(extra map[string]any) map[string]any {
		s := map[string]any{"bot_token": "123:abc", "secret_token": "tok"}
		for k, v := range extra {
			s[k] = v
		}
		return map[string]any{"kind": "telegram", "settings": s}
	}
	for _, tc := range []struct {
		name string
		body any
		want string
	}{
		{"no kind", map[string]any{"settings": map[string]any{}}, "kind: is required"},
		{"unknown kind", map[string]any{"kind": "irc", "settings": map[string]any{}}, `kind: "irc" is not a kind of channel`},
		{"unknown setting", tg(map[string]any{"token": "x"}), "settings.token: is not a setting of telegram channels"},
		{"missing setting", map[string]any{"kind": "slack", "settings": map[string]any{"bot_token": "xoxb-1"}}, "settings.signing_secret: is required"},
		{"bad api_base_url", tg(map[string]any{"api_base_url": "ftp://api.telegram.org"}), "settings.api_base_url: must be an absolute http(s) URL"},
		{"relative callback_url", map[string]any{"kind": "webhook", "settings": map[string]any{"secret": strings.Repeat("s", 16), "callback_url": "/hook"}}, "settings.callback_url"},
		{"short webhook secret", map[string]any{"kind": "webhook", "settings": map[string]any{"secret": "short"}}, "settings.secret: must be at least 16"},
		{"setting not a string", tg(map[string]any{"bot_token": 42}), "settings.bot_token: must be a string"},
		{"bad secret_token", tg(map[string]any{"secret_token": "has space"}), "settings.secret_token"},
		{"bad discord key", map[string]any{"kind": "discord", "settings": map[string]any{"application_id": "1", "public_key": "xyz", "bot_token": "t"}}, "settings.public_key"},
		{"bad origin", map[string]any{"kind": "web", "settings": map[string]any{"allowed_origins": []string{"https://a.example/path"}}}, "settings.allowed_origins[0]"},
		{"masked secret", tg(map[string]any{"bot_token": "••••abcd"}), "settings.bot_token: is a masked value"},
		{"long name", map[string]any{"kind": "web", "name": strings.Repeat("n", 101), "settings": map[string]any{}}, "name: must be at most 100"},
		{"unknown field", map[string]any{"kind": "web", "settings": map[string]any{}, "status": "active"}, "status: is not a field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.s.call(t, "POST", path, bootstrapToken, tc.body).fails(t, 400, 4000, tc.want)
		})
	}
	// A token the platform refuses names the field too.
	c.s.call(t, "POST", path, bootstrapToken, map[string]any{"kind": "telegram", "settings": c.withPlatform("telegram",
		map[string]any{"bot_token": "654321:AAH-not-the-bots-token", "secret_token": "tok"})}).fails(t, 400, 4000, "settings.bot_token: was refused by Telegram")
	c.s.call(t, "POST", path, bootstrapToken, map[string]any{"kind": "slack", "settings": c.withPlatform("slack",
		map[string]any{"bot_token": "xoxb-revoked-token-0000", "signing_secret": "signing-secret-00002222"})}).fails(t, 400, 4000, "settings.bot_token: was refused by Slack")
	if list := items(t, c.s.call(t, "GET", path, bootstrapToken, nil).must(t, 200).data, "channels"); len(list) != 0 {
		t.Fatalf("refused creations stored %v", list)
	}
	c.s.call(t, "POST", "/api/bots/4242/channels", bootstrapToken, map[string]any{"kind": "web", "settings": map[string]any{}}).fails(t, 404, 4200, "bot 4242")
}

func channelsLifecycle(t *testing.T, c *channelsSetup) {
	botID := c.bot(t, "Lifecycle")
	path := "/api/bots/" + botID + "/channels"
	created := c.s.call(t, "POST", path, bootstrapToken, map[string]any{"kind": "slack", "name": "Support",
		"settings": c.withPlatform("slack", map[string]any{"bot_token": fakeSlackToken, "signing_secret": "signing-secret-00002222"})}).must(t, 201).data
	one := path + "/" + str(created, "id")
	settings := func(r reply) map[string]any { return r.data["settings"].(map[string]any) }

	got := c.s.call(t, "GET", one, bootstrapToken, nil).must(t, 200)
	if str(got.data, "name") != "Support" || str(settings(got), "bot_token") != "••••1111" {
		t.Fatalf("get = %v", got.data)
	}
	// A secret not sent, or sent back masked, is kept; a new one replaces
	// it once the platform accepts the new settings.
	patched := c.s.call(t, "PATCH", one, bootstrapToken, map[string]any{"name": "Help desk",
		"settings": map[string]any{"bot_token": "••••1111", "signing_secret": "signing-secret-rotated-3333"}}).must(t, 200)
	if s := settings(patched); str(patched.data, "name") != "Help desk" || str(s, "bot_token") != "••••1111" || str(s, "signing_secret") != "••••3333" || str(s, "api_base_url") != c.sl.APIURL() {
		t.Fatalf("patched = %v", patched.data)
	}
	if stored, sealed := c.storedRow(t, str(created, "id")); strings.Contains(stored+sealed, "signing-secret-rotated") {
		t.Fatal("the rotated secret is readable in the database")
	}
	// Changed credentials are checked with the platform as on creation;
	// what it refuses, or a base URL that cannot be reached, stores nothing.
	c.s.call(t, "PATCH", one, bootstrapToken, map[string]any{"settings": map[string]any{"bot_token": "xoxb-rotated-token-4444"}}).
		fails(t, 400, 4000, "settings.bot_token: was refused by Slack: slack auth.test: invalid_auth")
	c.s.call(t, "PATCH", one, bootstrapToken, map[string]any{"name": "Moved", "settings": map[string]any{"api_base_url": "http://127.0.0.1:9/api"}}).
		fails(t, 503, 5030, "slack auth.test")
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"status": "failing"}, "status: must be active or disabled"},
		{map[string]any{"kind": "telegram"}, "kind: cannot change"},
		{map[string]any{"settings": map[string]any{"bot_token": nil}}, "settings.bot_token: is required"},
		{map[string]any{"settings": map[string]any{"api_base_url": "not a url"}}, "settings.api_base_url"},
	} {
		c.s.call(t, "PATCH", one, bootstrapToken, tc.body).fails(t, 400, 4000, tc.want)
	}
	if again := c.s.call(t, "GET", one, bootstrapToken, nil).must(t, 200); str(settings(again), "bot_token") != "••••1111" ||
		str(settings(again), "api_base_url") != c.sl.APIURL() || str(again.data, "name") != "Help desk" || str(again.data, "status") != "active" {
		t.Fatalf("a refused patch changed the channel: %v", again.data)
	}
	if d := c.s.call(t, "PATCH", one, bootstrapToken, map[string]any{"status": "disabled"}).must(t, 200); str(d.data, "status") != "disabled" {
		t.Fatalf("disable = %v", d.data)
	}
	if e := c.s.call(t, "PATCH", one, bootstrapToken, map[string]any{"status": "active"}).must(t, 200); str(e.data, "status") != "active" {
		t.Fatalf("enable = %v", e.data)
	}
	c.s.call(t, "DELETE", one, bootstrapToken, nil).must(t, 200)
	c.s.call(t, "GET", one, bootstrapToken, nil).fails(t, 404, 4200, "channel "+str(created, "id")+" not found")
	c.s.call(t, "DELETE", one, bootstrapToken, nil).fails(t, 404, 4200, "not found")
	c.s.call(t, "PATCH", one, bootstrapToken, map[string]any{"name": "x"}).fails(t, 404, 4200, "not found")
}

func channelsIsolation(t *testing.T, c *channelsSetup) {
	botID := c.bot(t, "Private")
	other := c.bot(t, "Other")
	path := "/api/bots/" + botID + "/channels"
	id := str(c.s.call(t, "POST", path, bootstrapToken, map[string]any{"kind": "line",
		"settings": c.withPlatform("line", map[string]any{"channel_secret": "line-secret-000001", "channel_access_token": "line-access-token-000002"})}).must(t, 201).data, "id")
	one := path + "/" + id
	bob := convUserToken(t, c.s, "bob.channels."+c.dbKind+"@example.com")
	for _, call := range []struct {
		method, path string
		body         any
	}{
		{"GET", path, nil}, {"POST", path, map[string]any{"kind": "web", "settings": map[string]any{}}},
		{"GET", one, nil}, {"PATCH", one, map[string]any{"status": "disabled"}}, {"DELETE", one, nil},
	} {
		c.s.call(t, call.method, call.path, bob, call.body).fails(t, 404, 4200, "bot "+botID+" not found")
	}
	// The channel is not reachable through another bot, even in the same workspace.
	c.s.call(t, "GET", "/api/bots/"+other+"/channels/"+id, bootstrapToken, nil).fails(t, 404, 4200, "channel "+id+" not found")
	c.s.call(t, "DELETE", "/api/bots/"+other+"/channels/"+id, bootstrapToken, nil).fails(t, 404, 4200, "not found")
	// A member who did not create the bot manages its channels but may not delete them.
	c.s.call(t, "POST", "/api/workspaces/"+c.ws+"/members", bootstrapToken, map[string]any{"email": "bob.channels." + c.dbKind + "@example.com"}).must(t, 201)
	c.s.call(t, "PATCH", one, bob, map[string]any{"name": "by bob"}).must(t, 200)
	c.s.call(t, "DELETE", one, bob, nil).fails(t, 403, 4101, "creator or an admin")
	if got := c.s.call(t, "GET", one, bootstrapToken, nil).must(t, 200).data; str(got, "name") != "by bob" || str(got, "status") != "active" {
		t.Fatalf("channel = %v", got)
	}
}
