// Package linefake is a local stand-in for LINE's Messaging API, for
// tests: a real HTTP server on 127.0.0.1 answering the endpoints a
// channel uses (bot info, webhook endpoint, reply, push) with LINE's
// shapes — errors as {"message": …, "details": […]}, single-use reply
// tokens refused with 400 "Invalid reply token", X-Line-Retry-Key
// conflicts as 409 — recording what it received, and a sender of
// webhook requests signed as LINE signs them.
package linefake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/pergola-ai/pergola/infra/channels/channelfake"
)

// LINE's limits on one reply or push.
const (
	maxMessages = 5
	maxText     = 5000
)

// Bot is the LINE Official Account the fake serves.
type Bot struct {
	Token  string // channel access token
	Secret string // channel secret
	UserID string // the bot's own user id, U…
}

// Sent is one reply or push the fake accepted.
type Sent struct {
	Via   string // "reply" or "push"
	To    string // the user, group or room
	Texts []string
}

// Server is the fake LINE.
type Server struct {
	*httptest.Server
	bot Bot
	// AllowHTTPWebhook lets the webhook endpoint be http (LINE wants https).
	AllowHTTPWebhook bool

	mu        sync.Mutex
	journal   channelfake.Journal[failure] // calls received, failures to answer next
	sent      []Sent
	tokens    map[string]string // reply token → to, until used
	retryKeys map[string]bool
	webhook   string
	seq       int
}

type failure struct{ status, retryAfter int }

// New starts the fake for bot and closes it when the test ends.
func New(t testing.TB, bot Bot) *Server {
	s := &Server{bot: bot, tokens: map[string]string{}, retryKeys: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// FailNext makes the next call answer status (429 with Retry-After
// seconds when retryAfter > 0).
func (s *Server) FailNext(status, retryAfter int) {
	s.journal.Fail(failure{status: status, retryAfter: retryAfter})
}

// Down makes every call answer status (5xx: Internal Server Error), as
// when the platform is down, until Up.
func (s *Server) Down(status int) { s.journal.Down(failure{status: status}) }

// Up ends Down.
func (s *Server) Up() { s.journal.Up() }

// ExpireReplyTokens makes every reply token issued so far invalid, as
// LINE does after about a minute.
func (s *Server) ExpireReplyTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = map[string]string{}
}

// Calls lists the calls received as "METHOD path", refused ones included.
func (s *Server) Calls() []string {
	return s.journal.Calls()
}

// Sent lists the replies and pushes accepted, in order.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// Webhook is the endpoint URL last registered.
func (s *Server) Webhook() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.record(r.Method + " " + r.URL.Path)
	if f, failing := s.journal.Next(); failing {
		writeFailure(w, f)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.bot.Token {
		writeError(w, http.StatusUnauthorized, "Authentication failed. Confirm that the access token in the authorization header is valid.")
		return
	}
	switch r.Method + " " + r.URL.Path {
	case "GET /v2/bot/info":
		writeJSON(w, http.StatusOK, map[string]any{"userId": s.bot.UserID, "basicId": "@pergola",
			"displayName": "Pergola", "chatMode": "bot", "markAsReadMode": "auto"})
	case "PUT /v2/bot/channel/webhook/endpoint":
		s.setWebhook(w, r)
	case "POST /v2/bot/message/reply":
		s.reply(w, r)
	case "POST /v2/bot/message/push":
		s.push(w, r)
	default:
		writeError(w, http.StatusNotFound, "Not found")
	}
}

func (s *Server) setWebhook(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Endpoint string `json:"endpoint"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil || !(strings.HasPrefix(body.Endpoint, "https://") ||
		(s.AllowHTTPWebhook && strings.HasPrefix(body.Endpoint, "http://"))) {
		writeError(w, http.StatusBadRequest, "Invalid webhook endpoint URL")
		return
	}
	s.mu.Lock()
	s.webhook = body.Endpoint
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{})
}

// sendBody is the body of a reply or push.
type sendBody struct {
	ReplyToken string `json:"replyToken"`
	To         string `json:"to"`
	Messages   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"messages"`
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request) {
	b, ok := readSend(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	to, valid := s.tokens[b.ReplyToken]
	delete(s.tokens, b.ReplyToken)
	s.mu.Unlock()
	if !valid {
		writeError(w, http.StatusBadRequest, "Invalid reply token")
		return
	}
	s.accept("reply", to, b)
	writeJSON(w, http.StatusOK, map[string]any{"sentMessages": []map[string]any{{"id": "1", "quoteToken": "q"}}})
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func (s *Server) push(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("X-Line-Retry-Key")
	if key != "" && !uuidShape.MatchString(key) {
		writeError(w, http.StatusBadRequest, "The value for the 'X-Line-Retry-Key' header is invalid")
		return
	}
	b, ok := readSend(w, r)
	if !ok {
		return
	}
	if b.To == "" {
		writeDetails(w, "to", "must be specified")
		return
	}
	s.mu.Lock()
	seen := key != "" && s.retryKeys[key]
	s.retryKeys[key] = key != ""
	s.mu.Unlock()
	if seen {
		w.Header().Set("X-Line-Accepted-Request-Id", "accepted-"+key)
		writeError(w, http.StatusConflict, "The retry key is already accepted")
		return
	}
	s.accept("push", b.To, b)
	writeJSON(w, http.StatusOK, map[string]any{"sentMessages": []map[string]any{{"id": "2", "quoteToken": "q"}}})
}

// readSend reads and checks a reply or push body as LINE does.
func readSend(w http.ResponseWriter, r *http.Request) (sendBody, bool) {
	var b sendBody
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 2<<20))
	if err := json.Unmarshal(raw, &b); err != nil {
		writeError(w, http.StatusBadRequest, "The request body could not be parsed as JSON")
		return b, false
	}
	if n := len(b.Messages); n < 1 || n > maxMessages {
		writeDetails(w, "messages", "Size must be between 1 and 5")
		return b, false
	}
	for i, m := range b.Messages {
		if why := checkText(m.Type, m.Text); why != "" {
			writeDetails(w, fmt.Sprintf("messages[%d].text", i), why)
			return b, false
		}
	}
	return b, true
}

func checkText(typ, text string) string {
	switch {
	case typ != "text":
		return "the fake accepts text messages only"
	case strings.TrimSpace(text) == "":
		return "may not be empty"
	case len(utf16.Encode([]rune(text))) > maxText:
		return "Length must be between 0 and 5000"
	}
	return ""
}
