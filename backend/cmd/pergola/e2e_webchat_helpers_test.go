package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// siteSecret is the end_user_secret of the web channels that take the
// site's own users.
const siteSecret = "site-secret-0123456789abcdef"

// webSetup is a server with the fake model and one bot with a prologue
// and suggested questions, not yet published anywhere.
type webSetup struct {
	s   *testServer
	llm *fakellm.Server
	ws  string
	bot string
}

// newWebSetup starts the server on b with the fake model streaming small
// chunks, tokenLatency apart, so answers visibly grow.
func newWebSetup(t *testing.T, b backend, tokenLatency time.Duration) *webSetup {
	t.Helper()
	llm := fakellm.New(fakellm.WithChunkChars(3), fakellm.WithTokenLatency(tokenLatency))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	s := startServer(t, b.env(t))
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{
		"id": "fake", "provider": "openai", "base_url": url, "api_key": "k", "model": "fake",
	}).must(t, 201)
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	bot := str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Helpdesk <Bot>",
		"icon_url": "https://cdn.example.com/bot.png", "model": map[string]any{"model_id": "fake"},
		"onboarding": map[string]any{"prologue": "Hello! I am **Helpdesk**.", "suggested_questions": []any{"What can you do?", "Opening hours?"}},
	}).must(t, 201).data, "id")
	return &webSetup{s: s, llm: llm, ws: ws, bot: bot}
}

// channel creates a web channel of the bot with settings.
func (w *webSetup) channel(t *testing.T, name string, settings map[string]any) string {
	t.Helper()
	made := w.s.call(t, "POST", "/api/bots/"+w.bot+"/channels", bootstrapToken,
		map[string]any{"kind": "web", "name": name, "settings": settings}).must(t, 201).data
	id := str(made, "id")
	if page := str(made, "chat_url"); !strings.HasSuffix(page, "/chat/"+id) || str(made, "webhook_url") != "" {
		t.Fatalf("a web channel shows chat_url %q, webhook_url %q; want its page and no webhook", page, str(made, "webhook_url"))
	}
	if !strings.Contains(str(made, "embed_html"), `/embed.js" data-channel="`+id+`"`) {
		t.Fatalf("embed_html = %q; want the embed script of channel %s", str(made, "embed_html"), id)
	}
	return id
}

// publish publishes the bot to the channels.
func (w *webSetup) publish(t *testing.T, channels ...string) {
	t.Helper()
	w.s.call(t, "POST", "/api/bots/"+w.bot+"/publish", bootstrapToken, map[string]any{"connector_ids": channels}).must(t, 201)
}

// webReq is one call of the web chat API as a browser makes it.
type webReq struct {
	method, path string
	token        string
	origin       string
	header       map[string]string
	body         any
}

// do sends the request and decodes a JSON answer; a stream is returned
// undecoded in events.
func (w *webSetup) do(t *testing.T, r webReq) (reply, []sseEvent) {
	t.Helper()
	var rd io.Reader
	if r.body != nil {
		b, _ := json.Marshal(r.body)
		if s, ok := r.body.(string); ok {
			b = []byte(s)
		}
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(r.method, w.s.base+r.path, rd)
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.origin != "" {
		req.Header.Set("Origin", r.origin)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer resp.Body.Close()
	out := reply{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return out, readEvents(t, resp.Body)
	}
	raw, _ := io.ReadAll(resp.Body)
	if strings.Contains(resp.Header.Get("Content-Type"), "json") {
		if err := json.Unmarshal(raw, &out.raw); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", r.method, r.path, raw)
		}
		code, _ := out.raw["code"].(float64)
		out.code = int(code)
		out.msg, _ = out.raw["msg"].(string)
		out.data, _ = out.raw["data"].(map[string]any)
	} else {
		out.msg = string(raw)
	}
	return out, nil
}

// readEvents reads an SSE body to its end.
func readEvents(t *testing.T, body io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		case line == "":
			events = append(events, cur)
			cur = sseEvent{}
		}
	}
	return events
}

// session starts an anonymous end user (or renews token) and returns its
// token and id.
func (w *webSetup) session(t *testing.T, ch, token string) (string, string) {
	t.Helper()
	r, _ := w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/session", token: token})
	r.must(t, 200)
	return str(r.data, "token"), str(r.data, "end_user")
}

// send posts a message and returns the streamed events; the answer must
// stream.
func (w *webSetup) send(t *testing.T, ch, token, text, messageID string) []sseEvent {
	t.Helper()
	r, events := w.do(t, webReq{method: "POST", path: "/chat/" + ch + "/messages", token: token,
		body: map[string]any{"text": text, "message_id": messageID}})
	if events == nil {
		t.Fatalf("message %q: %d %q, not a stream", text, r.status, r.msg)
	}
	return events
}

// answer is the text the stream's deltas add up to, checked against its
// done event.
func answer(t *testing.T, events []sseEvent) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		switch e.name {
		case "delta":
			b.WriteString(str(e.obj(t), "text"))
		case "done":
			if done := str(e.obj(t), "answer"); done != b.String() {
				t.Fatalf("done says %q, the deltas %q", done, b.String())
			}
			return b.String()
		case "error":
			t.Fatalf("the answer failed: %s", e.data)
		}
	}
	t.Fatalf("the stream ended without done: %v", names(events))
	return ""
}

// history returns the end user's conversation as "role: content".
func (w *webSetup) history(t *testing.T, ch, token string) []string {
	t.Helper()
	r, _ := w.do(t, webReq{method: "GET", path: "/chat/" + ch + "/messages", token: token})
	r.must(t, 200)
	var out []string
	for _, m := range items(t, r.data, "messages") {
		out = append(out, str(m, "role")+": "+str(m, "content"))
	}
	return out
}

// siteToken signs an end-user token as a site's backend does.
func siteToken(t *testing.T, secret string, claims jwt.MapClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
