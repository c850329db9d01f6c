package mcp

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionStore keeps, for every process, which token opened each session
// (redis.Cache).
type SessionStore interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, val []byte, ttl time.Duration) error
	Delete(ctx context.Context, keys ...string) error
}

const (
	sessionHeader = "Mcp-Session-Id"
	storeTimeout  = 2 * time.Second
)

// sessions routes a session's requests when the session may have been
// opened by another process. The process that opened a session holds it
// (the SDK's session: its stream of server messages, its questions to the
// client); every process serves the session's requests (tools, resources,
// prompts), those of a session it does not hold through a session made
// for the one request, as the SDK's stateless mode does, after checking
// in the store that the session exists and that the same token opened
// it. So no routing by Mcp-Session-Id is needed; what stays with the
// process that opened the session is what the server sends of its own
// accord: list_changed notifications on the session's stream, questions
// through elicitation (a call served elsewhere cannot ask and says how to
// answer later), and the cancellation of a call, which only the process
// running it hears.
type sessions struct {
	store     SessionStore
	stateful  http.Handler
	stateless http.Handler
	mu        sync.Mutex
	local     map[string]heldSession // the sessions this process opened, by id
}

type heldSession struct {
	server *sdk.Server // the session's own
	user   string
}

type holderKey struct{}

// holder carries the server the SDK made for a new session out of it.
type holder struct{ server *sdk.Server }

func (s *sessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		s.open(w, r)
		return
	}
	if user, ok := s.held(id); ok {
		if user == userOf(r) {
			s.touch(r.Context(), id, user)
		}
		s.stateful.ServeHTTP(w, r) // the SDK checks the token
		return
	}
	owner, found := s.owner(r.Context(), id)
	switch {
	case !found:
		s.stateful.ServeHTTP(w, r) // the SDK's 404: start a new session
	case owner != userOf(r):
		http.Error(w, "session user mismatch", http.StatusForbidden)
	case r.Method == http.MethodDelete:
		s.forget(r.Context(), id)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet:
		// The session's stream is on the process that opened it.
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "this session's stream is served by the process that opened it", http.StatusMethodNotAllowed)
	default:
		s.touch(r.Context(), id, owner)
		s.stateless.ServeHTTP(w, r)
	}
}

// open serves a request without a session (initialize) and records the
// session it opens before the answer leaves, so the client's next request
// finds it on any process.
func (s *sessions) open(w http.ResponseWriter, r *http.Request) {
	h := &holder{}
	rec := &recording{ResponseWriter: w, record: func() {
		id := w.Header().Get(sessionHeader)
		if id == "" || h.server == nil {
			return
		}
		user := userOf(r)
		s.mu.Lock()
		s.local[id] = heldSession{server: h.server, user: user}
		s.mu.Unlock()
		s.touch(context.WithoutCancel(r.Context()), id, user)
	}}
	s.stateful.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), holderKey{}, h)))
}

// held returns the token of session id when this process holds it open.
func (s *sessions) held(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.local[id]
	if ok && !open(h.server) {
		delete(s.local, id)
		return "", false
	}
	return h.user, ok
}

func (s *sessions) owner(ctx context.Context, id string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	v, ok, err := s.store.Get(ctx, storeKey(id))
	if err != nil || !ok {
		return "", false
	}
	return string(v), true
}

// touch records session id as user's, for as long as a session idles.
func (s *sessions) touch(ctx context.Context, id, user string) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	_ = s.store.Set(ctx, storeKey(id), []byte(user), sessionIdle)
}

func (s *sessions) forget(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	_ = s.store.Delete(ctx, storeKey(id))
}

func storeKey(id string) string { return "mcp-session:" + id }

// userOf is who the SDK binds a session to: the token.
func userOf(r *http.Request) string {
	if info := auth.TokenInfoFromContext(r.Context()); info != nil {
		return info.UserID
	}
	return ""
}

// recording calls record once, when the answer's header is written.
type recording struct {
	http.ResponseWriter
	record func()
	once   sync.Once
}

func (r *recording) WriteHeader(code int) {
	r.once.Do(r.record)
	r.ResponseWriter.WriteHeader(code)
}

func (r *recording) Write(b []byte) (int, error) {
	r.once.Do(r.record)
	return r.ResponseWriter.Write(b)
}

// Flush passes the SDK's flushes of event streams on.
func (r *recording) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (r *recording) Unwrap() http.ResponseWriter { return r.ResponseWriter }
