// Package slackfake is a local stand-in for Slack, for tests: a real
// HTTP server on 127.0.0.1 answering the Web API methods a channel uses
// (auth.test, chat.postMessage, chat.update) with Slack's shapes — failures as HTTP
// 200 {"ok":false,"error":"invalid_auth"}, rate limits as 429 with
// Retry-After — recording what it received, and a sender of Events API
// requests signed as Slack signs them.
package slackfake

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/channelfake"
)

// maxText is where Slack refuses a message as msg_too_long.
const maxText = 40000

// Bot is the bot user the fake serves.
type Bot struct {
	Token  string // xoxb-…
	UserID string // U…
	BotID  string // B…
	TeamID string // T…
}

// Posted is one chat.postMessage the fake accepted.
type Posted struct {
	TS       string // the ts the fake gave the message
	Channel  string
	Text     string
	ThreadTS string
}

// Server is the fake Slack.
type Server struct {
	*httptest.Server
	bot Bot

	mu      sync.Mutex
	journal channelfake.Journal[failure] // calls received, failures to answer next
	posted  []Posted
	updates []Update
	current map[string]Posted // each message as it reads now, by channel and ts
	seq     int
}

type failure struct{ status, retryAfter int }

// New starts the fake for bot and closes it when the test ends.
func New(t testing.TB, bot Bot) *Server {
	s := &Server{bot: bot, current: map[string]Posted{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// APIURL is the base of the fake Web API, for a channel's api_base_url
// (the real one is https://slack.com/api).
func (s *Server) APIURL() string { return s.URL + "/api" }

// FailNext makes the next call answer status: 429 carries Retry-After
// (seconds), others an HTML error page as Slack's front ends send.
func (s *Server) FailNext(status, retryAfter int) {
	s.journal.Fail(failure{status: status, retryAfter: retryAfter})
}

// Down makes every call answer status (5xx: Internal Server Error), as
// when the platform is down, until Up.
func (s *Server) Down(status int) { s.journal.Down(failure{status: status}) }

// Up ends Down.
func (s *Server) Up() { s.journal.Up() }

// Calls lists the methods called, in order, refused ones included.
func (s *Server) Calls() []string {
	return s.journal.Calls()
}

// Posted lists the messages accepted, in order.
func (s *Server) Posted() []Posted {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Posted(nil), s.posted...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/api/")
	s.record(method)
	if !ok || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if f, failing := s.journal.Next(); failing {
		writeFailure(w, f)
		return
	}
	p, err := readParams(r)
	if err != nil {
		writeError(w, "invalid_json")
		return
	}
	if why := s.authorize(r, p); why != "" {
		writeError(w, why)
		return
	}
	s.method(w, method, p)
}

func (s *Server) method(w http.ResponseWriter, method string, p map[string]string) {
	switch method {
	case "auth.test":
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "url": "https://fake.slack.com/",
			"team": "Fake", "user": "pergola", "team_id": s.bot.TeamID, "user_id": s.bot.UserID, "bot_id": s.bot.BotID})
	case "chat.postMessage":
		s.postMessage(w, p)
	case "chat.update":
		s.update(w, p)
	default:
		writeError(w, "unknown_method")
	}
}

// authorize reads the token as Slack does, from a Bearer header or the
// token parameter, and returns the error code of a refusal.
func (s *Server) authorize(r *http.Request, p map[string]string) string {
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" {
		token = p["token"]
	}
	switch {
	case token == "":
		return "not_authed"
	case token != s.bot.Token:
		return "invalid_auth"
	}
	return ""
}

func (s *Server) postMessage(w http.ResponseWriter, p map[string]string) {
	switch {
	case p["channel"] == "":
		writeError(w, "channel_not_found")
	case textError(p["text"]) != "":
		writeError(w, textError(p["text"]))
	default:
		ts := s.accept(Posted{Channel: p["channel"], Text: p["text"], ThreadTS: p["thread_ts"]})
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": p["channel"], "ts": ts,
			"message": map[string]any{"text": p["text"], "ts": ts, "thread_ts": p["thread_ts"], "bot_id": s.bot.BotID}})
	}
}

func (s *Server) accept(m Posted) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	m.TS = fmt.Sprintf("1700000000.%06d", s.seq)
	s.posted = append(s.posted, m)
	s.current[m.Channel+"/"+m.TS] = m
	return m.TS
}

// textError is Slack's error code for a message text it refuses, or "".
func textError(text string) string {
	switch {
	case strings.TrimSpace(text) == "":
		return "no_text"
	case len([]rune(text)) > maxText:
		return "msg_too_long"
	}
	return ""
}

func (s *Server) record(method string) {
	s.journal.Record(method)
}

// readParams reads a form or JSON body into strings, as the Web API
// takes either.
func readParams(r *http.Request) (map[string]string, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	out := map[string]string{}
	if ct == "application/json" {
		var raw map[string]any
		body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		if err != nil || json.Unmarshal(body, &raw) != nil {
			return nil, fmt.Errorf("invalid JSON")
		}
		for k, v := range raw {
			out[k] = fmt.Sprint(v)
		}
		return out, nil
	}
	if err := r.ParseForm(); err != nil {
		return nil, err
	}
	for k := range r.Form {
		out[k] = r.Form.Get(k)
	}
	return out, nil
}

func writeError(w http.ResponseWriter, code string) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": code})
}

func writeFailure(w http.ResponseWriter, f failure) {
	if f.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", fmt.Sprint(f.retryAfter))
		writeJSON(w, f.status, map[string]any{"ok": false, "error": "ratelimited"})
		return
	}
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, "<html><body>Slack is having trouble</body></html>")
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
