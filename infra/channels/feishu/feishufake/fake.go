// Package feishufake is a local stand-in for the Feishu/Lark Open
// Platform, for tests: a real HTTP server on 127.0.0.1 issuing tenant
// access tokens, answering the bot's info, the reply API, the send API
// (POST /open-apis/im/v1/messages?receive_id_type=chat_id) and the edit of
// a sent text message (at most 20 edits) with the platform's shapes — refusals as {"code":non-zero,"msg"}, a refused
// token as code 99991663, rate limits as 429 with x-ogw-ratelimit-reset
// — recording what it received, and a sender of event requests
// encrypted and signed as the platform sends them.
package feishufake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/channelfake"
)

// App is an app the fake serves.
type App struct {
	ID        string // cli_…
	Secret    string
	BotOpenID string // ou_…
	BotName   string
	// ChatIDs are the chats (oc_…) the bot is in, where it can send new
	// messages; others are refused with code 230002.
	ChatIDs []string
}

// Reply is one message the reply API accepted.
type Reply struct {
	ID        string // the id the fake gave the reply
	MessageID string // the message replied to
	MsgType   string
	Text      string // the text of content {"text":…}
}

// Server is the fake platform.
type Server struct {
	*httptest.Server
	apps []App

	mu      sync.Mutex
	journal channelfake.Journal[failure] // calls received, failures to answer next
	replies []Reply
	posts   []Post
	edits   []Edit
	current map[string]*sentText // each reply as it reads now, by id
	tokens  map[string]App
	seq     int
	refuse  bool
}

type failure struct{ status, code, retryAfter int }

// New starts the fake for apps and closes it when the test ends.
func New(t testing.TB, apps ...App) *Server {
	s := &Server{apps: apps, tokens: map[string]App{}, current: map[string]*sentText{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// FailNext makes the next call other than the token's answer status: 429
// carries x-ogw-ratelimit-reset (seconds), 5xx a gateway page.
func (s *Server) FailNext(status, retryAfter int) {
	s.journal.Fail(failure{status: status, retryAfter: retryAfter})
}

// Down makes every call answer status (5xx: Internal Server Error), as
// when the platform is down, until Up.
func (s *Server) Down(status int) { s.journal.Down(failure{status: status}) }

// Up ends Down.
func (s *Server) Up() { s.journal.Up() }

// RevokeTokens makes every token issued so far invalid (code 99991663).
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = map[string]App{}
}

// RefuseTokens makes every token, old or new, invalid from now on, as
// when the app is disabled after its tokens were issued.
func (s *Server) RefuseTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = true
}

// Calls lists the paths called, in order, refused ones included.
func (s *Server) Calls() []string {
	return s.journal.Calls()
}

// Replies lists the replies accepted, in order.
func (s *Server) Replies() []Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Reply(nil), s.replies...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.record(r.Method + " " + r.URL.Path)
	if r.URL.Path == "/open-apis/auth/v3/tenant_access_token/internal" && r.Method == http.MethodPost {
		s.issueToken(w, r)
		return
	}
	if f, failing := s.journal.Next(); failing {
		writeFailure(w, f)
		return
	}
	app, ok := s.authorized(r)
	if !ok {
		writeCode(w, http.StatusBadRequest, 99991663, "Invalid access token for authorization. Please make a request with token attached.")
		return
	}
	switch {
	case r.URL.Path == "/open-apis/bot/v3/info" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok", "bot": map[string]any{
			"activate_status": 2, "app_name": app.BotName, "avatar_url": "", "ip_white_list": []string{}, "open_id": app.BotOpenID}})
	case r.URL.Path == "/open-apis/im/v1/messages" && r.Method == http.MethodPost:
		s.create(w, r, app)
	case strings.HasPrefix(r.URL.Path, "/open-apis/im/v1/messages/") && strings.HasSuffix(r.URL.Path, "/reply") && r.Method == http.MethodPost:
		s.reply(w, r)
	case strings.HasPrefix(r.URL.Path, "/open-apis/im/v1/messages/") && r.Method == http.MethodPut:
		s.edit(w, r)
	default:
		writeCode(w, http.StatusNotFound, 404, "404 page not found")
	}
}

func (s *Server) issueToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		AppID     string `json:"app_id"`
		AppSecret string `json:"app_secret"`
	}
	if json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in) != nil {
		writeCode(w, http.StatusBadRequest, 9499, "Bad Request")
		return
	}
	app, known := s.app(in.AppID)
	if !known {
		writeCode(w, http.StatusBadRequest, 10003, "invalid param")
		return
	}
	if in.AppSecret != app.Secret {
		writeCode(w, http.StatusBadRequest, 10014, "app secret invalid")
		return
	}
	s.mu.Lock()
	s.seq++
	token := fmt.Sprintf("t-fake-%d", s.seq)
	s.tokens[token] = app
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok", "tenant_access_token": token, "expire": 7200})
}

func (s *Server) authorized(r *http.Request) (App, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	defer s.mu.Unlock()
	app, known := s.tokens[token]
	return app, ok && known && !s.refuse
}

func (s *Server) app(id string) (App, bool) {
	for _, a := range s.apps {
		if a.ID == id {
			return a, true
		}
	}
	return App{}, false
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/open-apis/im/v1/messages/"), "/reply")
	text, content, ok := readText(r)
	if !ok || !strings.HasPrefix(id, "om_") {
		writeCode(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter.")
		return
	}
	s.mu.Lock()
	s.seq++
	reply := Reply{ID: fmt.Sprintf("om_reply_%d", s.seq), MessageID: id, MsgType: "text", Text: text}
	s.replies = append(s.replies, reply)
	s.current[reply.ID] = &sentText{text: text}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{
		"message_id": reply.ID, "parent_id": id, "msg_type": "text", "body": map[string]any{"content": content}}})
}

func (s *Server) record(call string) {
	s.journal.Record(call)
}

func writeFailure(w http.ResponseWriter, f failure) {
	if f.status == http.StatusTooManyRequests {
		w.Header().Set("x-ogw-ratelimit-limit", "50")
		w.Header().Set("x-ogw-ratelimit-reset", fmt.Sprint(f.retryAfter))
		writeCode(w, f.status, 99991400, "request trigger frequency limit")
		return
	}
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
}

func writeCode(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"code": code, "msg": msg})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
