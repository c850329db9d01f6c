package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// limitsEnv is a server whose message limit is 1,000 characters and whose
// history limit is 2,500, small enough to cross cheaply.
var limitsEnv = map[string]string{"PERGOLA_MAX_MESSAGE_CHARS": "1000", "PERGOLA_MAX_HISTORY_CHARS": "2500",
	"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}

// overLimit says what a message of 1,001 characters is refused with.
const overLimit = "is 1001 characters, over the limit of 1000 a message may have (PERGOLA_MAX_MESSAGE_CHARS)"

// TestInputLimits drives every surface a chat message enters through with
// a message just within PERGOLA_MAX_MESSAGE_CHARS and one just past it
// (characters, not bytes: "é" is two bytes): past it each answers 400
// naming the field and the setting, and the model is not called. History
// past PERGOLA_MAX_HISTORY_CHARS is trimmed oldest first, and what the
// trim keeps whatever its length is bounded by it together. Also: a model
// request without model is 400 naming model; an image URL the egress
// policy refuses is 400 naming it; a webhook event whose user_id the
// runtime would refuse is 400 naming user_id; a plugin that a published
// bot uses is deleted only with force; the web chat page's icon is served.
func TestInputLimits(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, limitsEnv))
			botID := c.bot(t, map[string]any{"name": "Limits", "model": map[string]any{"model_id": "fake"}})
			chID, path := webhookChannel(t, c.s, botID, map[string]any{})
			c.s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{"1024", chID}}).must(t, 201)
			within, over := strings.Repeat("é", 1000), strings.Repeat("é", 1001)
			before := len(c.llm.Requests())
			t.Run("coze chat", func(t *testing.T) { limitsCoze(t, c, botID, within, over) })
			t.Run("openai", func(t *testing.T) { limitsOpenAI(t, c, botID, over) })
			t.Run("webhook", func(t *testing.T) { limitsWebhook(t, c, botID, chID, path, over) })
			t.Run("mcp", func(t *testing.T) { limitsMCP(t, c, over) })
			if n := len(c.llm.Requests()) - before; n != 1 {
				t.Fatalf("the model was called %d times; want once, for the message within the limit", n)
			}
			t.Run("history trimmed oldest first", func(t *testing.T) { limitsHistory(t, c, botID) })
			t.Run("what the trim keeps is bounded", func(t *testing.T) { limitsKept(t, c, botID) })
			t.Run("image URLs through the egress policy", func(t *testing.T) { limitsImageURL(t, c) })
			t.Run("plugin in use", func(t *testing.T) { pluginInUse(t, c, botID) })
			t.Run("web chat favicon", func(t *testing.T) { webChatFavicon(t, c, botID) })
		})
	}
}

func limitsCoze(t *testing.T, c *chatSetup, botID, within, over string) {
	c.s.call(t, "POST", "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
		"additional_messages": userMessage(over)}).fails(t, 400, 4000, "additional_messages[0].content: "+overLimit)
	events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": userMessage(within)})
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("a message within the limit: %v", got)
	}
	c.s.call(t, "POST", "/v1/conversation/create", bootstrapToken, map[string]any{"bot_id": botID,
		"messages": userMessage(over)}).fails(t, 400, 4000, "messages[0].content: "+overLimit)
	conv := str(c.s.call(t, "POST", "/v1/conversation/create", bootstrapToken, map[string]any{"bot_id": botID}).must(t, 200).data, "id")
	c.s.call(t, "POST", "/v1/conversation/message/create?conversation_id="+conv, bootstrapToken, map[string]any{
		"role": "user", "content": over, "content_type": "text"}).fails(t, 400, 4000, "content: "+overLimit)
}

func limitsOpenAI(t *testing.T, c *chatSetup, botID, over string) {
	e := oaError(t, c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID,
		"messages": []map[string]any{{"role": "user", "content": over}}}), 400)
	if e["param"] != "messages[0].content" || !strings.Contains(e["message"].(string), overLimit) {
		t.Fatalf("an over-long completion message: %v", e)
	}
	e = oaError(t, c.s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{
		"messages": []map[string]any{{"role": "user", "content": "hi"}}}), 400)
	if e["param"] != "model" || e["type"] != "invalid_request_error" || !strings.Contains(e["message"].(string), "model: is required") {
		t.Fatalf("a completion without model: %v", e)
	}
	e = oaError(t, c.s.call(t, "POST", "/v1/responses", bootstrapToken, map[string]any{"model": botID, "input": over}), 400)
	if !strings.Contains(e["message"].(string), overLimit) {
		t.Fatalf("an over-long response input: %v", e)
	}
}

func limitsWebhook(t *testing.T, c *chatSetup, botID, chID, path, over string) {
	r := postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": "long", "user_id": "alice", "text": over})
	if r.status != 400 || !strings.Contains(str(r.body, "msg"), "text: "+overLimit) {
		t.Fatalf("an over-long webhook event = %d %v", r.status, r.body)
	}
	for _, id := range []string{" alice", "al\u200bice", strings.Repeat("a", 121)} {
		r = postEvent(t, c.s, path, webhookSecret, time.Now(), map[string]any{"event_id": "bad-user", "user_id": id, "text": "hi"})
		if r.status != 400 || !strings.Contains(str(r.body, "msg"), "user_id: must be 1 to 120 characters") {
			t.Fatalf("webhook event with user_id %q = %d %v; want 400 naming user_id", id, r.status, r.body)
		}
	}
	if d := deliveries(t, c.s, botID, chID); len(d) != 0 {
		t.Fatalf("refused events were stored: %v", d)
	}
}

func limitsMCP(t *testing.T, c *chatSetup, over string) {
	cl, err := c.s.connectMCP(t, bootstrapToken, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cl.try("chat_limits", map[string]any{"message": over}, "")
	if err == nil {
		mustFailWith(t, res, overLimit)
	} else if !strings.Contains(err.Error(), overLimit) {
		t.Fatalf("an over-long MCP message: %v", err)
	}
}

// limitsHistory: three rounds of 900-character messages, then a
// question. 2,500 characters of history hold the last round only (1,800);
// the one before would make 3,600.
func limitsHistory(t *testing.T, c *chatSetup, botID string) {
	var msgs []map[string]any
	for _, who := range []string{"1", "2", "3"} {
		msgs = append(msgs, map[string]any{"role": "user", "content": who + strings.Repeat("q", 899), "content_type": "text"},
			map[string]any{"role": "assistant", "content": who + strings.Repeat("a", 899), "content_type": "text"})
	}
	conv := str(c.s.call(t, "POST", "/v1/conversation/create", bootstrapToken, map[string]any{"bot_id": botID, "messages": msgs}).must(t, 200).data, "id")
	events := c.s.stream(t, "/v3/chat?conversation_id="+conv, bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
		"stream": true, "additional_messages": userMessage("and now?")})
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("a chat with a long history: %v", got)
	}
	reqs := c.llm.Requests()
	got := reqs[len(reqs)-1].Messages
	if len(got) != 4 || got[0].Role != "system" || !strings.HasPrefix(got[1].Content, "3q") || got[1].Role != "user" ||
		!strings.HasPrefix(got[2].Content, "3a") || got[3].Content != "and now?" {
		var seen []string
		for _, m := range got {
			seen = append(seen, m.Role+":"+m.Content[:min(3, len(m.Content))])
		}
		t.Fatalf("the model got %v; want the system prompt, the last round and the question", seen)
	}
}

// limitsImageURL: an image at a link-local (metadata) or loopback address
// is refused before anything runs, naming the URL and why.
func limitsImageURL(t *testing.T, c *chatSetup) {
	c.s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "eyes", "provider": "openai",
		"base_url": c.llm.BaseURL(), "api_key": "k", "model": "fake-eyes", "capabilities": map[string]any{"vision": true}}).must(t, 201)
	botID := c.bot(t, map[string]any{"name": "Eyes", "model": map[string]any{"model_id": "eyes"}})
	before := len(c.llm.Requests())
	for url, why := range map[string]string{
		"http://169.254.169.254/latest/meta-data/": "169.254.169.254 is a cloud metadata address",
		"http://metadata.google.internal/x.png":    "metadata.google.internal is a cloud metadata host name",
		"http://10.1.2.3/cat.png":                  "10.1.2.3 is a private",
		"ftp://example.com/cat.png":                `scheme "ftp" is not allowed`,
	} {
		c.s.call(t, "POST", "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
			"additional_messages": objectString(t, map[string]any{"type": "image", "file_url": url})}).
			fails(t, 400, 4000, "item 0: file_url \""+url+"\" cannot be sent to the model: egress refused: "+why)
	}
	if n := len(c.llm.Requests()); n != before {
		t.Fatalf("the model was called %d times for refused images", n-before)
	}
}

// pluginInUse: a plugin bound by a published bot's version is deleted
// only with force=true; the 409 names the bot.
func pluginInUse(t *testing.T, c *chatSetup, _ string) {
	api := newWeatherAPI(t)
	id := str(c.s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{"workspace_id": c.ws, "openapi": weatherDoc,
		"server_url": api.URL + "/v1"}).must(t, 201).data, "id")
	c.s.call(t, "POST", "/api/plugins/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	unused := str(c.s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{"workspace_id": c.ws, "openapi": weatherDoc,
		"name": "Weather, unused", "server_url": api.URL + "/v1"}).must(t, 201).data, "id")
	botID := c.bot(t, map[string]any{"name": "Forecaster", "model": map[string]any{"model_id": "fake"},
		"plugins": []map[string]any{{"plugin_id": id, "tool": "getWeather"}}})
	c.s.call(t, "DELETE", "/api/plugins/"+id, bootstrapToken, nil).
		fails(t, 409, 4300, "plugin "+id+" is used by the published bots "+botID+" \"Forecaster\"")
	c.s.call(t, "DELETE", "/api/plugins/"+id+"?force=maybe", bootstrapToken, nil).fails(t, 400, 4000, "force: must be true or false")
	c.s.call(t, "GET", "/api/plugins/"+id, bootstrapToken, nil).must(t, 200)
	c.s.call(t, "DELETE", "/api/plugins/"+unused, bootstrapToken, nil).must(t, 200)
	c.s.call(t, "DELETE", "/api/plugins/"+id+"?force=true", bootstrapToken, nil).must(t, 200)
	c.s.call(t, "GET", "/api/plugins/"+id, bootstrapToken, nil).fails(t, 404, 4200, "")
}

// webChatFavicon: the hosted page of a bot without an icon links
// Pergola's icon, and the icon is served.
func webChatFavicon(t *testing.T, c *chatSetup, botID string) {
	chID := str(c.s.call(t, "POST", "/api/bots/"+botID+"/channels", bootstrapToken, map[string]any{"kind": "web", "settings": map[string]any{}}).must(t, 201).data, "id")
	c.s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{"1024", chID}}).must(t, 201)
	get := func(path string) (*http.Response, string) {
		resp, err := http.Get(c.s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, page := get("/chat/" + chID)
	i := strings.Index(page, `<link rel="icon" type="image/svg+xml" href="`)
	if resp.StatusCode != 200 || i < 0 {
		t.Fatalf("the page (%d) links no icon:\n%s", resp.StatusCode, page)
	}
	href := page[i+len(`<link rel="icon" type="image/svg+xml" href="`):]
	href = strings.ReplaceAll(href[:strings.Index(href, `"`)], "&amp;", "&")
	resp, icon := get(href)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(icon, "<svg") ||
		!strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("GET %s = %d %q %q %.40q", href, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"), icon)
	}
}
