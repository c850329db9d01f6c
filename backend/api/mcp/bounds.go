package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxSessionsPerToken is how many sessions one token may hold open in a
// process; opening one more closes the token's least recently used one,
// so a client that opens sessions without deleting them cannot pile them
// up for the half hour they would idle.
const maxSessionsPerToken = 100

// A JSON-RPC batch (protocol versions before 2025-06-18) is one request
// for the rate limit: it may hold at most maxBatch messages, of which at
// most one tools/call, so that it cannot run many bots at the cost of one
// request.
const (
	maxBatch      = 10
	maxBatchCalls = 1
)

// sweepEvery is how often the sessions that ended are forgotten.
const sweepEvery = time.Minute

// bounds keeps each token's sessions and batches within the limits above,
// in front of the SDK's handler (or of sessions).
type bounds struct {
	next  http.Handler
	limit int64 // the largest body read, as the SDK's
	// end closes session id: the SDK's session, and where sessions are
	// shared, the session for every process.
	end   func(ctx context.Context, id string, s *sdk.Server)
	mu    sync.Mutex
	open  map[string]map[string]*openSession // by token, by session id
	swept time.Time
}

type openSession struct {
	server *sdk.Server
	used   time.Time
}

func newBounds(next http.Handler, limit int64, end func(context.Context, string, *sdk.Server)) *bounds {
	return &bounds{next: next, limit: limit, end: end, open: map[string]map[string]*openSession{}}
}

func (b *bounds) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && !b.batchFits(w, r) {
		return
	}
	id := r.Header.Get(sessionHeader)
	if id != "" {
		b.used(userOf(r), id)
		b.next.ServeHTTP(w, r)
		return
	}
	h := holderOf(r)
	if h == nil {
		h = &holder{}
		r = r.WithContext(context.WithValue(r.Context(), holderKey{}, h))
	}
	b.next.ServeHTTP(w, r)
	if opened := w.Header().Get(sessionHeader); opened != "" && h.server != nil {
		b.opened(r.Context(), userOf(r), opened, h.server)
	}
}

func holderOf(r *http.Request) *holder {
	h, _ := r.Context().Value(holderKey{}).(*holder)
	return h
}

func (b *bounds) used(user, id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.open[user][id]; ok {
		s.used = time.Now()
	}
}

// opened records the session a token opened and closes the token's least recently used sessions past the limit.
func (b *bounds) opened(ctx context.Context, user, id string, srv *sdk.Server) {
	b.mu.Lock()
	b.sweep()
	mine := b.open[user]
	if mine == nil {
		mine = map[string]*openSession{}
		b.open[user] = mine
	}
	mine[id] = &openSession{server: srv, used: time.Now()}
	if len(mine) > maxSessionsPerToken {
		forgetEnded(mine)
	}
	evicted := map[string]*sdk.Server{}
	for len(mine) > maxSessionsPerToken {
		oldest := leastUsed(mine)
		evicted[oldest] = mine[oldest].server
		delete(mine, oldest)
	}
	b.mu.Unlock()
	for e, s := range evicted {
		b.end(context.WithoutCancel(ctx), e, s)
	}
}

// sweep forgets, at most every sweepEvery, the sessions that ended (deleted
// or idle), so their servers are not kept; b.mu is held.
func (b *bounds) sweep() {
	if time.Since(b.swept) < sweepEvery {
		return
	}
	b.swept = time.Now()
	for user, mine := range b.open {
		forgetEnded(mine)
		if len(mine) == 0 {
			delete(b.open, user)
		}
	}
}

func forgetEnded(mine map[string]*openSession) {
	for k, s := range mine {
		if !open(s.server) {
			delete(mine, k)
		}
	}
}

// leastUsed returns the id of the session of mine used longest ago.
func leastUsed(mine map[string]*openSession) string {
	var id string
	var best *openSession
	for k, s := range mine {
		if best == nil || s.used.Before(best.used) {
			id, best = k, s
		}
	}
	return id
}

// batchFits refuses, with 400, a batch holding too many messages or tool
// calls; it leaves the body for the handler.
func (b *bounds) batchFits(w http.ResponseWriter, r *http.Request) bool {
	br := bufio.NewReader(r.Body)
	r.Body = struct {
		io.Reader
		io.Closer
	}{br, r.Body}
	if !startsArray(br) {
		return true // a single message: the SDK reads it, nothing is copied here
	}
	most := b.limit
	if most <= 0 {
		most = math.MaxInt64 - 1
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, most+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	trimmed := bytes.TrimSpace(body)
	if err != nil || len(trimmed) == 0 || trimmed[0] != '[' || int64(len(body)) > most {
		return true // not a batch, or the SDK answers
	}
	msgs := batchOf(trimmed)
	calls := 0
	for _, m := range msgs {
		if m.Method == "tools/call" {
			calls++
		}
	}
	if len(msgs) <= maxBatch && calls <= maxBatchCalls {
		return true
	}
	http.Error(w, "a JSON-RPC batch may hold at most "+strconv.Itoa(maxBatch)+" messages and "+strconv.Itoa(maxBatchCalls)+
		" tools/call; send the others as separate requests", http.StatusBadRequest)
	return false
}

// batchOf decodes a batch's messages; nil when it is not valid JSON (the
// SDK answers).
func batchOf(body []byte) []message {
	var batch []message
	if json.Unmarshal(body, &batch) != nil {
		return nil
	}
	return batch
}

// startsArray peeks past the body's leading white space: is it a JSON
// array (a batch)? A body whose white space fills the peek buffer may be
// one, so the caller reads it whole.
func startsArray(br *bufio.Reader) bool {
	for n := 1; n <= br.Size(); n++ {
		p, _ := br.Peek(n)
		if len(p) < n {
			return false
		}
		switch c := p[n-1]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return c == '['
		}
	}
	return true
}
