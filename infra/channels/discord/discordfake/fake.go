// Package discordfake is a local stand-in for Discord, for tests: a real
// HTTP server on 127.0.0.1 answering the HTTP API calls a channel makes
// (GET /users/@me and /applications/@me with "Authorization: Bot …",
// PATCH /webhooks/{application_id}/{token}/messages/{@original or a
// follow-up's id}, 404 Unknown Message for another id, POST
// /webhooks/{application_id}/{token}, and as the bot POST
// /channels/{channel_id}/messages and PATCH
// /channels/{channel_id}/messages/{message_id}) with Discord's JSON and error
// shapes ({"message","code"}; 429 with Retry-After and retry_after; 400
// "Invalid Form Body" past 2,000 characters), recording what it
// received, and a sender of interactions signed with the application's
// Ed25519 key as Discord signs them.
package discordfake

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/infra/channels/channelfake"
)

// maxContent is where Discord refuses a message's content.
const maxContent = 2000

// App is the application and bot the fake serves.
type App struct {
	ApplicationID string
	BotToken      string
	BotUserID     string
	// ChannelIDs are the channels the bot can post in; others are 404
	// Unknown Channel.
	ChannelIDs []string
}

// Message is one edit or follow-up the fake accepted, or a message the
// bot posted in a channel (or its edit).
type Message struct {
	// Token is the interaction's token; empty for a channel's message.
	Token string
	// ChannelID is the channel a bot's message was posted in; empty for
	// an interaction's.
	ChannelID string
	// ID is the id of the message made (a follow-up) or edited.
	ID string
	// Edit is true for an edit (PATCH …/messages/{Target}), false for a
	// follow-up (POST).
	Edit bool
	// Target is what an edit named: "@original" (the original
	// response) or a follow-up's id.
	Target  string
	Content string
	// ParseMentions is allowed_mentions.parse; nil when allowed_mentions
	// was absent (Discord then pings whoever the text mentions).
	ParseMentions []string
}

// Server is the fake Discord.
type Server struct {
	*httptest.Server
	app  App
	priv ed25519.PrivateKey

	mu       sync.Mutex
	journal  channelfake.Journal[failure] // calls received, failures to answer next
	messages []Message
	tokens   map[string]bool // interaction tokens issued
	seq      int
}

type failure struct {
	status     int
	retryAfter float64
}

// New starts the fake for app, with a fresh Ed25519 key, and closes it
// when the test ends.
func New(t testing.TB, app App) *Server {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{app: app, priv: priv, tokens: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// APIURL is the base of the fake API, for a channel's api_base_url (the
// real one is https://discord.com/api/v10).
func (s *Server) APIURL() string { return s.URL + "/api/v10" }

// PublicKey is the application's public key as the developer portal
// shows it: 64 hexadecimal characters.
func (s *Server) PublicKey() string { return hex.EncodeToString(s.priv.Public().(ed25519.PublicKey)) }

// FailNext makes the next call answer status: 429 carries Retry-After
// and retry_after (seconds), others Discord's JSON error.
func (s *Server) FailNext(status int, retryAfter float64) {
	s.journal.Fail(failure{status: status, retryAfter: retryAfter})
}

// Down makes every call answer status (5xx: Internal Server Error), as
// when the platform is down, until Up.
func (s *Server) Down(status int) { s.journal.Down(failure{status: status}) }

// Up ends Down.
func (s *Server) Up() { s.journal.Up() }

// Calls lists the requests received ("PATCH /webhooks/{app}/…"), in
// order, refused ones included; interaction tokens show as "…".
func (s *Server) Calls() []string {
	return s.journal.Calls()
}

// Messages lists the edits and follow-ups accepted, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// MessagesOf lists the edits and follow-ups accepted for one
// interaction token.
func (s *Server) MessagesOf(token string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		if m.Token == token {
			out = append(out, m)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.EscapedPath(), "/api/v10")
	s.record(r.Method, path)
	if f, failing := s.journal.Next(); failing {
		writeFailure(w, f)
		return
	}
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, "404: Not Found", 0)
	case r.Method == http.MethodGet && (path == "/users/@me" || path == "/applications/@me"):
		s.me(w, r, path)
	case strings.HasPrefix(path, "/webhooks/"):
		s.webhook(w, r, strings.Split(strings.TrimPrefix(path, "/webhooks/"), "/"))
	case strings.HasPrefix(path, "/channels/"):
		s.channelCall(w, r, strings.Split(strings.TrimPrefix(path, "/channels/"), "/"))
	default:
		writeError(w, http.StatusNotFound, "404: Not Found", 0)
	}
}

func (s *Server) me(w http.ResponseWriter, r *http.Request, path string) {
	if r.Header.Get("Authorization") != "Bot "+s.app.BotToken {
		writeError(w, http.StatusUnauthorized, "401: Unauthorized", 0)
		return
	}
	bot := map[string]any{"id": s.app.BotUserID, "username": "pergola", "discriminator": "0", "bot": true}
	if path == "/users/@me" {
		writeJSON(w, http.StatusOK, bot)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": s.app.ApplicationID, "name": "Pergola", "bot": bot,
		"verify_key": s.PublicKey(), "bot_public": true})
}

func (s *Server) record(method, path string) {
	parts := strings.Split(path, "/")
	if len(parts) > 3 && parts[1] == "webhooks" {
		parts[3] = "…"
	}
	s.journal.Record(method + " " + strings.Join(parts, "/"))
}
