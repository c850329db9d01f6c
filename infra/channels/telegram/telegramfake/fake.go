// Package telegramfake is a local stand-in for the Telegram Bot API, for
// tests: a real HTTP server on 127.0.0.1 answering POST
// /bot{token}/{method} with Telegram's JSON envelope and error shapes
// (401 Unauthorized for a wrong token, 429 with parameters.retry_after,
// 400 "can't parse entities" for bad HTML, "message is too long" past
// 4,096 characters; for editMessageText "message to edit not found" and
// "message is not modified"), recording what it received, and pushing updates to
// the registered webhook with the secret header as Telegram does.
package telegramfake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/channelfake"
)

// Bot is the bot the fake serves.
type Bot struct {
	ID       int64
	Token    string
	Username string
}

// Sent is one sendMessage the fake accepted.
type Sent struct {
	MessageID int64 // the id the fake gave the message
	ChatID    int64
	ThreadID  int64 // message_thread_id, 0 when absent
	Text      string
	ParseMode string
	ReplyTo   int64 // reply_parameters.message_id, 0 when absent
}

// Webhook is what setWebhook registered.
type Webhook struct {
	URL            string
	SecretToken    string
	AllowedUpdates []string
}

// Server is the fake Bot API.
type Server struct {
	*httptest.Server
	bot Bot
	// AllowHTTPWebhook lets setWebhook take http:// URLs (Telegram wants
	// https), for tests whose server has no TLS.
	AllowHTTPWebhook bool

	mu      sync.Mutex
	journal channelfake.Journal[failure] // calls received, failures to answer next
	sent    []Sent
	edits   []Edit
	current map[int64]Sent // each message as it reads now, by id
	webhook Webhook
	nextID  int64
}

type failure struct {
	status      int
	retryAfter  int
	description string
}

// New starts the fake for bot and closes it when the test ends.
func New(t testing.TB, bot Bot) *Server {
	s := &Server{bot: bot, nextID: 1000, current: map[int64]Sent{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// FailNext makes the next call answer status: 429 carries
// parameters.retry_after (seconds), others an Internal Server Error.
func (s *Server) FailNext(status, retryAfter int) {
	s.journal.Fail(failure{status: status, retryAfter: retryAfter})
}

// Down makes every call answer status (5xx: Internal Server Error), as
// when the platform is down, until Up.
func (s *Server) Down(status int) { s.journal.Down(failure{status: status}) }

// Up ends Down.
func (s *Server) Up() { s.journal.Up() }

// FailNextWith makes the next call answer an error with status and
// Telegram's description, e.g. 400 "Bad Request: can't parse entities: …".
func (s *Server) FailNextWith(status int, description string) {
	s.journal.Fail(failure{status: status, description: description})
}

// Calls lists the methods called, in order, wrong tokens included.
func (s *Server) Calls() []string {
	return s.journal.Calls()
}

// Sent lists the messages accepted, in order.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// Webhook returns what setWebhook registered last.
func (s *Server) Webhook() Webhook {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook
}

// Push posts update to the registered webhook with its secret token in
// X-Telegram-Bot-Api-Secret-Token, as Telegram delivers updates, and
// returns the answer's status.
func (s *Server) Push(ctx context.Context, client *http.Client, update any) (int, error) {
	hook := s.Webhook()
	if hook.URL == "" {
		return 0, fmt.Errorf("telegramfake: no webhook registered")
	}
	body, err := json.Marshal(update)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if hook.SecretToken != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", hook.SecretToken)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	token, method, ok := splitPath(r.URL.Path)
	s.record(method)
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	if token != s.bot.Token {
		writeError(w, http.StatusUnauthorized, "Unauthorized", 0)
		return
	}
	if f, failing := s.journal.Next(); failing {
		writeFailure(w, f)
		return
	}
	params, err := readParams(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "Bad Request: "+err.Error(), 0)
		return
	}
	s.method(w, method, params)
}

func (s *Server) method(w http.ResponseWriter, method string, p params) {
	switch method {
	case "getMe":
		writeResult(w, map[string]any{"id": s.bot.ID, "is_bot": true, "first_name": s.bot.Username, "username": s.bot.Username})
	case "setWebhook":
		s.setWebhook(w, p)
	case "sendMessage":
		s.sendMessage(w, p)
	case "editMessageText":
		s.editMessageText(w, p)
	default:
		writeError(w, http.StatusNotFound, "Not Found", 0)
	}
}

// splitPath reads /bot{token}/{method}.
func splitPath(path string) (token, method string, ok bool) {
	rest, found := strings.CutPrefix(path, "/bot")
	if !found {
		return "", "", false
	}
	token, method, ok = strings.Cut(rest, "/")
	return token, method, ok && token != "" && method != ""
}

func (s *Server) record(method string) {
	s.journal.Record(method)
}

func (s *Server) setWebhook(w http.ResponseWriter, p params) {
	u, err := url.Parse(p.str("url"))
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(s.AllowHTTPWebhook && u.Scheme == "http")) {
		writeError(w, http.StatusBadRequest, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook", 0)
		return
	}
	s.mu.Lock()
	s.webhook = Webhook{URL: u.String(), SecretToken: p.str("secret_token"), AllowedUpdates: p.strs("allowed_updates")}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": true, "description": "Webhook was set"})
}
