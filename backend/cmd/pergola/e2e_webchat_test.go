package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestWebChatAPI runs the web chat's API through the real server on both
// back ends: serving rules, anonymous and identified end users, the
// streamed answer, history across sessions, reset, deliveries, CORS and
// the rate limit.
func TestWebChatAPI(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			w := newWebSetup(t, withEnv(b, map[string]string{"PERGOLA_CORS_ORIGINS": "https://console.example"}), 0)
			anon := w.channel(t, "Site chat", map[string]any{"allowed_origins": []any{"https://shop.example"}})
			t.Run("unpublished", func(t *testing.T) { webUnpublished(t, w, anon) })
			signed := w.channel(t, "Members", map[string]any{"end_user_secret": siteSecret})
			limited := w.channel(t, "Limited", map[string]any{"messages_per_minute": "2"})
			w.publish(t, anon, signed, limited)
			t.Run("page and config", func(t *testing.T) { webConfig(t, w, anon) })
			t.Run("anonymous chat and history", func(t *testing.T) { webAnonymous(t, w, anon) })
			t.Run("bad messages", func(t *testing.T) { webBadInput(t, w, anon) })
			t.Run("tokens", func(t *testing.T) { webTokens(t, w, anon, signed) })
			t.Run("cors", func(t *testing.T) { webCORS(t, w, anon) })
			t.Run("rate limit", func(t *testing.T) { webRateLimit(t, w, limited) })
			t.Run("disabled", func(t *testing.T) { webDisabled(t, w, limited) })
		})
	}
}

func webUnpublished(t *testing.T, w *webSetup, ch string) {
	r, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch + "/config"})
	r.fails(t, 403, 4101, "not published to the corresponding channel (channel "+ch+")")
	r, _ = w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/session"})
	r.fails(t, 403, 4101, "not published")
	page, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch})
	if page.status != 403 || !strings.Contains(page.msg, "This chat is not open yet") {
		t.Fatalf("page of an unpublished bot = %d %q; want 403 saying so", page.status, page.msg)
	}
	for _, path := range []string{"/chat/999999", "/chat/abc"} {
		if r, _ := w.do(t, webReq{method: "GET", path: path}); r.status != 404 || !strings.Contains(r.msg, "This chat does not exist") {
			t.Fatalf("GET %s = %d %q; want the 404 page", path, r.status, r.msg)
		}
	}
	hook := str(w.s.call(t, "POST", "/api/bots/"+w.bot+"/channels", bootstrapToken, map[string]any{"kind": "webhook",
		"settings": map[string]any{"secret": webhookSecret}}).must(t, 201).data, "id")
	r, _ = w.do(t, webReq{method: "GET", path: "/chat/" + hook + "/config"})
	r.fails(t, 404, 4200, "web chat "+hook+" not found")
}

func webConfig(t *testing.T, w *webSetup, ch string) {
	page, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch})
	if page.status != 200 || !strings.Contains(page.msg, "<title>Helpdesk &lt;Bot&gt;</title>") ||
		!strings.Contains(page.msg, `name="viewport"`) || !strings.Contains(page.header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("page = %d %q; want the page titled with the escaped bot name, a viewport and a CSP", page.status, page.msg)
	}
	r, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch + "/config"})
	r.must(t, 200)
	if str(r.data, "bot_name") != "Helpdesk <Bot>" || str(r.data, "prologue") != "Hello! I am **Helpdesk**." ||
		str(r.data, "icon_url") != "https://cdn.example.com/bot.png" || str(r.data, "channel_name") != "Site chat" {
		t.Fatalf("config = %v", r.data)
	}
	if q := r.data["suggested_questions"].([]any); len(q) != 2 || q[0] != "What can you do?" {
		t.Fatalf("suggested questions = %v", q)
	}
	for _, path := range []string{"/embed.js", "/chat/assets/widget.js"} {
		js, _ := w.do(t, webReq{method: "GET", path: path})
		etag := js.header.Get("ETag")
		if js.status != 200 || etag == "" || !strings.Contains(js.msg, "PergolaWidget") || strings.Contains(js.msg, "__PERGOLA_CSS__") {
			t.Fatalf("GET %s = %d etag %q", path, js.status, etag)
		}
		again, _ := w.do(t, webReq{method: "GET", path: path, header: map[string]string{"If-None-Match": etag}})
		if again.status != 304 {
			t.Fatalf("GET %s with its ETag = %d; want 304", path, again.status)
		}
	}
}

func webAnonymous(t *testing.T, w *webSetup, ch string) {
	token, user := w.session(t, ch, "")
	if !strings.HasPrefix(user, "web:anon:") {
		t.Fatalf("anonymous end user = %q", user)
	}
	first := w.send(t, ch, token, "hello there", "m-1")
	if first[0].name != "message" || str(first[0].obj(t), "message_id") != "m-1" || answer(t, first) != "echo: hello there" {
		t.Fatalf("answer events = %v", first)
	}
	xss := `<img src=x onerror="alert(1)"> **bold**`
	answer(t, w.send(t, ch, token, xss, "m-2"))
	renewed, again := w.session(t, ch, token)
	if again != user || renewed == "" {
		t.Fatalf("second session with the same token = %q; want %q", again, user)
	}
	want := []string{"user: hello there", "assistant: echo: hello there", "user: " + xss, "assistant: echo: " + xss}
	if got := w.history(t, ch, renewed); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("history after a new session = %q; want %q (stored as text)", got, want)
	}
	replay := w.send(t, ch, token, "hello there", "m-1")
	if answer(t, replay) != "echo: hello there" || str(replay[0].obj(t), "chat_id") != str(first[0].obj(t), "chat_id") ||
		replay[0].obj(t)["replayed"] != true || modelCalls(w.llm, "hello there") != 1 {
		t.Fatalf("message sent again = %v; want the stored answer, the model asked once", replay)
	}
	webDeliveries(t, w, ch, user, str(first[0].obj(t), "chat_id"))
	webReset(t, w, ch, token)
}

// webDeliveries checks that messages are recorded as deliveries.
func webDeliveries(t *testing.T, w *webSetup, ch, user, chatID string) {
	d := waitDelivery(t, w.s, w.bot, ch, "m-1", "delivered")
	if str(d, "end_user") != user || str(d, "chat_id") != chatID || str(d, "conversation_id") == "" || d["attempts"] != float64(1) {
		t.Fatalf("delivery of m-1 = %v", d)
	}
	if len(deliveries(t, w.s, w.bot, ch)) != 2 {
		t.Fatalf("deliveries = %v; want the two messages once each", deliveries(t, w.s, w.bot, ch))
	}
}

func webReset(t *testing.T, w *webSetup, ch, token string) {
	r, _ := w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/reset", token: token})
	r.must(t, 200)
	if got := w.history(t, ch, token); len(got) != 0 {
		t.Fatalf("history after reset = %q", got)
	}
	answer(t, w.send(t, ch, token, "fresh start", "m-3"))
	if got := w.history(t, ch, token); len(got) != 2 {
		t.Fatalf("history of the new conversation = %q", got)
	}
	before := waitDelivery(t, w.s, w.bot, ch, "m-1", "delivered")
	after := waitDelivery(t, w.s, w.bot, ch, "m-3", "delivered")
	if str(before, "conversation_id") == str(after, "conversation_id") {
		t.Fatalf("reset kept conversation %s", str(after, "conversation_id"))
	}
}

func webBadInput(t *testing.T, w *webSetup, ch string) {
	token, _ := w.session(t, ch, "")
	cases := []struct {
		name   string
		body   any
		status int
		want   string
	}{
		{"no text", map[string]any{"text": "  "}, 400, "text: is required"},
		{"too long", map[string]any{"text": strings.Repeat("a", 32001)}, 400, "over the limit of 32000 a message may have (PERGOLA_MAX_MESSAGE_CHARS)"},
		{"bad message id", map[string]any{"text": "hi", "message_id": "a b"}, 400, "message_id"},
		{"not JSON", "{", 400, "not valid JSON"},
	}
	for _, tc := range cases {
		r, events := w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/messages", token: token, body: tc.body})
		if events != nil {
			t.Fatalf("%s: answered with a stream", tc.name)
		}
		r.fails(t, tc.status, 4000, tc.want)
	}
	other, _ := w.session(t, ch, "")
	answer(t, w.send(t, ch, token, "mine", "shared-id"))
	r, _ := w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/messages", token: other, body: map[string]any{"text": "yours", "message_id": "shared-id"}})
	r.fails(t, 409, 4300, "was used for another message")
}

func webTokens(t *testing.T, w *webSetup, anon, signed string) {
	chID, _ := strconv.ParseInt(signed, 10, 64)
	now := time.Now()
	good := jwt.MapClaims{"sub": "alice", "aud": signed, "exp": now.Add(time.Hour).Unix(), "name": "Alice"}
	with := func(k string, v any) jwt.MapClaims {
		c := jwt.MapClaims{}
		for key, val := range good {
			c[key] = val
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	forgedAnon := siteToken(t, "not-the-server-key-0123456789", jwt.MapClaims{"sub": "anon:x", "aud": anon, "exp": now.Add(time.Hour).Unix(), "iss": "pergola"})
	cases := []struct {
		name, ch, token string
		status          int
		want            string
	}{
		{"none", anon, "", 401, "no end-user token"},
		{"not a JWT", anon, "garbage", 401, "not a JWT"},
		{"forged anonymous", anon, forgedAnon, 401, "was not signed by this server"},
		{"site token on an anonymous chat", anon, siteToken(t, siteSecret, good), 401, "takes no site-signed tokens"},
		{"expired", signed, siteToken(t, siteSecret, with("exp", now.Add(-time.Hour).Unix())), 401, "expired"},
		{"forged", signed, siteToken(t, "another-secret-0123456789", good), 401, "signature does not match"},
		{"wrong aud", signed, siteToken(t, siteSecret, with("aud", strconv.FormatInt(chID+1, 10))), 401, "its aud must be \"" + signed + "\""},
		{"no exp", signed, siteToken(t, siteSecret, with("exp", nil)), 401, "no exp"},
		{"no aud", signed, siteToken(t, siteSecret, with("aud", nil)), 401, "has no aud: set aud to \"" + signed + "\""},
		{"exp as a string", signed, siteToken(t, siteSecret, with("exp", strconv.FormatInt(now.Add(time.Hour).Unix(), 10))), 401, "exp must be a number of seconds"},
		{"exp as a word", signed, siteToken(t, siteSecret, with("exp", "tomorrow")), 401, `exp must be a number of seconds since 1970 (a JSON number such as 1767225600), got "tomorrow"`},
		{"exp too far", signed, siteToken(t, siteSecret, with("exp", now.Add(48*time.Hour).Unix())), 401, "at most 24 hours ahead"},
		{"sub anon:", signed, siteToken(t, siteSecret, with("sub", "anon:x")), 401, `must not start with "anon:"`},
		{"sub with a tab", signed, siteToken(t, siteSecret, with("sub", "a\tb")), 401, "control characters"},
	}
	for _, tc := range cases {
		r, _ := w.do(t, webReq{method: "GET", path: "/chat/" + tc.ch + "/messages", token: tc.token})
		if r.status != tc.status || !strings.Contains(r.msg, tc.want) {
			t.Errorf("%s: %d %q; want %d saying %q", tc.name, r.status, r.msg, tc.status, tc.want)
		}
	}
	r, _ := w.do(t, webReq{method: "POST", path: "/chat/" + signed + "/session"})
	r.fails(t, 403, 4101, "does not take anonymous users")
	alice := siteToken(t, siteSecret, good)
	r, _ = w.do(t, webReq{method: "POST", path: "/chat/" + signed + "/session", token: alice})
	if r.must(t, 200); str(r.data, "end_user") != "web:alice" || str(r.data, "name") != "Alice" || str(r.data, "token") != alice {
		t.Fatalf("identified session = %v", r.data)
	}
	answer(t, w.send(t, signed, alice, "I am Alice", "a-1"))
	if d := waitDelivery(t, w.s, w.bot, signed, "a-1", "delivered"); str(d, "end_user") != "web:alice" {
		t.Fatalf("delivery of an identified user = %v", d)
	}
}

func webCORS(t *testing.T, w *webSetup, ch string) {
	path := "/chat/" + ch + "/messages"
	pre := func(origin string) reply {
		r, _ := w.do(t, webReq{method: "OPTIONS", path: path, origin: origin,
			header: map[string]string{"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"}})
		return r
	}
	ok := pre("https://shop.example")
	if ok.status != 204 || ok.header.Get("Access-Control-Allow-Origin") != "https://shop.example" ||
		!strings.Contains(ok.header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Fatalf("preflight from an allowed origin = %d %v", ok.status, ok.header)
	}
	for _, origin := range []string{"https://evil.example", "https://console.example"} {
		if bad := pre(origin); bad.status != 403 || bad.header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("preflight from %s = %d %v; want 403 without CORS headers", origin, bad.status, bad.header)
		}
		r, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch + "/config", origin: origin})
		r.fails(t, 403, 4101, "add the origin to the channel's allowed_origins")
	}
	token, _ := w.session(t, ch, "")
	r, events := w.do(t, webReq{method: "POST", path: path, origin: "https://shop.example", token: token, body: map[string]any{"text": "from the shop"}})
	if events == nil || r.header.Get("Access-Control-Allow-Origin") != "https://shop.example" || answer(t, events) != "echo: from the shop" {
		t.Fatalf("message from an allowed origin = %d %v", r.status, r.header)
	}
	self, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch + "/config", origin: w.s.base})
	if self.must(t, 200); self.header.Get("Access-Control-Allow-Origin") != w.s.base {
		t.Fatalf("the hosted page's own origin was refused: %v", self.header)
	}
}

func webRateLimit(t *testing.T, w *webSetup, ch string) {
	token, _ := w.session(t, ch, "")
	for i := range 2 {
		answer(t, w.send(t, ch, token, "message "+strconv.Itoa(i), ""))
	}
	r, _ := w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/messages", token: token, body: map[string]any{"text": "one too many"}})
	r.fails(t, 429, 4013, "too many messages: at most 2 a minute")
	if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 || secs > 60 {
		t.Fatalf("Retry-After = %q", r.header.Get("Retry-After"))
	}
	other, _ := w.session(t, ch, "")
	answer(t, w.send(t, ch, other, "another person", ""))
}

func webDisabled(t *testing.T, w *webSetup, ch string) {
	token, _ := w.session(t, ch, "")
	w.s.call(t, "PATCH", "/api/bots/"+w.bot+"/channels/"+ch, bootstrapToken, map[string]any{"status": "disabled"}).must(t, 200)
	r, _ := w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/messages", token: token, body: map[string]any{"text": "anyone?"}})
	r.fails(t, 409, 4300, "this chat is switched off")
	page, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch})
	if page.status != 409 || !strings.Contains(page.msg, "This chat is switched off") {
		t.Fatalf("page of a disabled channel = %d %q", page.status, page.msg)
	}
}
