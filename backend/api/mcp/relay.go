package mcp

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/pergola-ai/pergola/domain/identity"
)

// streamCheck is how often an open stream checks that its session still
// exists, and keeps it (and what it saw) from idling out meanwhile.
const streamCheck = sessionIdle / 3

// maxStreams is how many streams (GET) one session may have open in a
// process: the specification lets a client hold several, and this bounds
// what one token's sessions can hold open.
const maxStreams = 4

// relayBuffer is how many notifications a stream holds for a client that
// is slow to read them; beyond that they are dropped.
const relayBuffer = 16

// The notifications a stream carries, as JSON-RPC messages.
var (
	toolsListChanged     = []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`)
	resourcesListChanged = []byte(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{}}`)
	promptsListChanged   = []byte(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}}`)
)

// relay is a session's stream of server messages (the GET of the
// streamable HTTP transport), served by whichever process the GET reaches
// when sessions are shared: the notifier of that process tells it of the
// session's changes, from what the session listed on any process.
type relay struct {
	session string
	who     identity.Principal
	seen    *seenStore
	out     chan []byte
	end     chan struct{}
	once    sync.Once
}

func (r *relay) live() bool {
	select {
	case <-r.end:
		return false
	default:
		return true
	}
}

func (r *relay) caller() identity.Principal { return r.who }

func (r *relay) last(ctx context.Context) (string, string) { return r.seen.last(ctx, r.session) }

func (r *relay) saw(ctx context.Context, tools, prompts string) {
	r.seen.record(ctx, r.session, tools, prompts)
}

func (r *relay) toolsChanged()   { r.send(toolsListChanged, resourcesListChanged) }
func (r *relay) promptsChanged() { r.send(promptsListChanged) }

// send queues messages without waiting for a slow client.
func (r *relay) send(msgs ...[]byte) {
	for _, m := range msgs {
		select {
		case r.out <- m:
		default:
		}
	}
}

// close ends the stream: its session was deleted or expired.
func (r *relay) close() { r.once.Do(func() { close(r.end) }) }

// relays are the streams open in this process, by session.
type relays struct {
	mu   sync.Mutex
	open map[string]map[*relay]struct{}
}

// add records stream r unless its session already has maxStreams open
// in this process; it reports whether it did.
func (rs *relays) add(r *relay) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.open[r.session]) >= maxStreams {
		return false
	}
	if rs.open[r.session] == nil {
		rs.open[r.session] = map[*relay]struct{}{}
	}
	rs.open[r.session][r] = struct{}{}
	return true
}

func (rs *relays) remove(r *relay) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.open[r.session], r)
	if len(rs.open[r.session]) == 0 {
		delete(rs.open, r.session)
	}
}

// closeAll ends the streams of a session that ended.
func (rs *relays) closeAll(session string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for r := range rs.open[session] {
		r.close()
	}
}

// stream serves the GET of session id, whose owner the caller is, until
// the client goes, the session is deleted or it expired.
func (s *sessions) stream(w http.ResponseWriter, r *http.Request, id string) {
	if !acceptsEvents(r) {
		http.Error(w, "Accept must contain 'text/event-stream' for GET requests", http.StatusBadRequest)
		return
	}
	var who identity.Principal
	if info := auth.TokenInfoFromContext(r.Context()); info != nil {
		who, _ = info.Extra[extraPrincipal].(identity.Principal)
	}
	rl := &relay{session: id, who: who, seen: s.seen, out: make(chan []byte, relayBuffer), end: make(chan struct{})}
	if !s.relays.add(rl) {
		http.Error(w, "this session already has "+strconv.Itoa(maxStreams)+" open streams (GET /mcp) here: close one before opening another",
			http.StatusConflict)
		return
	}
	defer s.relays.remove(rl)
	if s.notifier != nil {
		s.notifier.add(rl, rl)
		defer s.notifier.remove(rl)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	flush(w)
	tick := time.NewTicker(streamCheck)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-rl.end:
			return
		case <-tick.C:
			if _, ok := s.owner(r.Context(), id); !ok {
				return // deleted or expired
			}
			s.touch(r.Context(), id, userOf(r))
			s.seen.keep(r.Context(), id)
		case m := <-rl.out:
			if _, err := w.Write(append(append([]byte("event: message\ndata: "), m...), '\n', '\n')); err != nil {
				return
			}
			flush(w)
		}
	}
}

func acceptsEvents(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "text/event-stream", "text/*", "*/*":
				return true
			}
		}
	}
	return false
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
