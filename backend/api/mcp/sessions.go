package mcp

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
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
// opened by another process, so no routing by Mcp-Session-Id is needed.
// The process that opened a session holds it (the SDK's session, its
// questions to the client); every process serves the session's requests
// (tools, resources, prompts), those of a session it does not hold
// through a session made for the one request, as the SDK's stateless mode
// does, after checking in the store that the session exists and that the
// same token opened it. Every process serves the session's stream of
// server messages (GET, relay), told of the session's list changes by its
// own notifier from what the session listed anywhere (seen). The bus
// carries the rest: a notifications/cancelled reaching any process
// cancels the call where it runs (calls), a DELETE reaching any process
// ends the session everywhere, and the client's answers to a call's
// questions reach the process that asked them (deliver). What stays with
// the process that opened the session is asking: a call served elsewhere
// cannot ask (elicitation), and says how to answer later.
type sessions struct {
	store     SessionStore
	stateful  http.Handler
	stateless http.Handler
	seen      *seenStore
	notifier  *notifier // nil: no list changes told
	bus       Bus       // nil: each process hears only its own requests
	calls     *calls
	relays    relays
	limit     int64 // the largest body read, as the SDK's
	log       *slog.Logger
	mu        sync.Mutex
	local     map[string]heldSession // the sessions this process opened, by id
	swept     time.Time              // when local was last rid of closed sessions
}

// newSessions returns sessions without their handlers (newStreamable sets
// them).
func newSessions(store SessionStore, n *notifier, bus Bus, limit int64, log *slog.Logger) *sessions {
	return &sessions{store: store, seen: &seenStore{store: store}, notifier: n,
		bus: bus, calls: newCalls(), relays: relays{open: map[string]map[*relay]struct{}{}}, limit: limit, log: log,
		local: map[string]heldSession{}}
}

type heldSession struct {
	server *sdk.Server // the session's own
	user   string
	info   *auth.TokenInfo // of the request that opened it, for replies (deliver)
}

type holderKey struct{}

// holder carries the server the SDK made for a new session out of it.
type holder struct{ server *sdk.Server }

func (s *sessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Header.Del(callHeader)
	id := r.Header.Get(sessionHeader)
	if id == "" {
		s.open(w, r)
		return
	}
	owner, held := s.held(id)
	if !held {
		var found bool
		if owner, found = s.owner(r.Context(), id); !found {
			s.stateful.ServeHTTP(w, r) // the SDK's 404: start a new session
			return
		}
	}
	if owner != userOf(r) {
		http.Error(w, "session user mismatch", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.touch(r.Context(), id, owner)
		s.stream(w, r, id)
	case http.MethodDelete:
		s.end(r.Context(), id)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPost:
		s.touch(r.Context(), id, owner)
		body := s.inspect(r, id)
		switch {
		case held:
			s.stateful.ServeHTTP(w, r)
		case s.bus != nil && repliesOnly(body):
			// Answers to the questions a call asks: for the process
			// holding the session, which asked them.
			s.publish(r.Context(), event{Reply: id, Body: body, Version: r.Header.Get(versionHeader)})
			w.WriteHeader(http.StatusAccepted)
		default:
			s.stateless.ServeHTTP(w, r)
		}
	default:
		s.stateful.ServeHTTP(w, r) // the SDK's 405
	}
}

// inspect reads a POST's messages before the SDK does: it names a tool
// call for the handler (callHeader), so a cancellation reaching another
// process finds it, and passes a cancellation on to where its call runs.
// It returns the body (nil when too large for the SDK to read).
func (s *sessions) inspect(r *http.Request, id string) []byte {
	most := s.limit
	if most <= 0 {
		most = math.MaxInt64 - 1
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, most+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil || int64(len(body)) > most {
		return nil // the SDK answers
	}
	msgs := messagesOf(body)
	for _, m := range msgs {
		switch m.Method {
		case "tools/call":
			if callID, ok := idOf(m.ID); ok && len(msgs) == 1 {
				r.Header.Set(callHeader, strconv.QuoteToASCII(callID))
			}
		case "notifications/cancelled":
			if callID, ok := idOf(m.Params.RequestID); ok && !s.calls.cancel(callKey(id, callID)) {
				s.publish(r.Context(), event{Cancel: callKey(id, callID)})
			}
		}
	}
	return body
}

// end deletes session id for every process and closes it wherever it is
// open.
func (s *sessions) end(ctx context.Context, id string) {
	s.forget(ctx, id)
	s.seen.forget(ctx, id)
	s.endLocal(id)
	s.publish(ctx, event{Ended: id})
}

// endLocal closes what this process has open of session id: its streams,
// and the SDK's session when it opened it.
func (s *sessions) endLocal(id string) {
	s.relays.closeAll(id)
	s.mu.Lock()
	h, ok := s.local[id]
	delete(s.local, id)
	s.mu.Unlock()
	if ok {
		for ss := range h.server.Sessions() {
			_ = ss.Close()
		}
	}
}

// open serves a request without a session (initialize) and records the
// session it opens before the answer leaves, so the client's next request
// finds it on any process.
func (s *sessions) open(w http.ResponseWriter, r *http.Request) {
	h := holderOf(r)
	if h == nil {
		h = &holder{}
	}
	rec := &recording{ResponseWriter: w, record: func() {
		id := w.Header().Get(sessionHeader)
		if id == "" || h.server == nil {
			return
		}
		user := userOf(r)
		s.mu.Lock()
		s.forgetClosed(time.Now())
		s.local[id] = heldSession{server: h.server, user: user, info: auth.TokenInfoFromContext(r.Context())}
		s.mu.Unlock()
		s.touch(context.WithoutCancel(r.Context()), id, user)
	}}
	s.stateful.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), holderKey{}, h)))
}

// forgetClosed drops, at most every sweepEvery, the sessions this process
// opened that closed without a request naming them since (idle ones the
// SDK timed out), so their servers are not kept; s.mu is held.
func (s *sessions) forgetClosed(now time.Time) {
	if now.Sub(s.swept) < sweepEvery {
		return
	}
	s.swept = now
	for id, h := range s.local {
		if !open(h.server) {
			delete(s.local, id)
		}
	}
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
