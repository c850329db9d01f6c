package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// callHeader carries, from the HTTP edge to the tools/call handler, the
// JSON-RPC id of the call a POST brings (quoted); the SDK does not hand a
// handler its request's id. A client's own header of that name is dropped.
const callHeader = "Pergola-Mcp-Call"

// early is how long a cancellation heard before its call started here is
// kept: a call and its cancellation may reach two processes, and the
// cancellation may arrive first. earlyMax bounds how many are kept.
const (
	early    = 10 * time.Second
	earlyMax = 1024
)

// calls are the tool calls this process runs for sessions every process
// serves, by session and call id, so that a notifications/cancelled that
// reaches any process cancels the call where it runs.
type calls struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc
	heard   map[string]time.Time // cancellations of calls not (yet) running here
}

func newCalls() *calls {
	return &calls{running: map[string]context.CancelFunc{}, heard: map[string]time.Time{}}
}

// start registers the call req runs, when the edge named it; the call's
// context is cancelled by cancel(key). done unregisters it.
func (c *calls) start(ctx context.Context, req sdk.Request) (context.Context, func()) {
	key := callOf(req)
	if key == "" {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	if at, ok := c.heard[key]; ok && time.Since(at) < early {
		delete(c.heard, key)
		cancel()
	} else {
		c.running[key] = cancel
	}
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		delete(c.running, key)
		c.mu.Unlock()
		cancel()
	}
}

// cancel cancels the call key when it runs here and reports whether it
// did.
func (c *calls) cancel(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.running[key]; ok {
		f()
		return true
	}
	return false
}

// cancelled cancels the call key, or keeps the cancellation for a moment
// in case the call is about to start here.
func (c *calls) cancelled(key string) {
	if c.cancel(key) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.heard) >= earlyMax {
		for k, at := range c.heard {
			if time.Since(at) >= early {
				delete(c.heard, k)
			}
		}
	}
	if len(c.heard) < earlyMax {
		c.heard[key] = time.Now()
	}
}

// callOf is the key of the call a tools/call request is: its session and
// the id the edge read.
func callOf(req sdk.Request) string {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return ""
	}
	session, quoted := extra.Header.Get(sessionHeader), extra.Header.Get(callHeader)
	id, err := strconv.Unquote(quoted)
	if session == "" || quoted == "" || err != nil {
		return ""
	}
	return callKey(session, id)
}

func callKey(session, id string) string { return session + "\x00" + id }

// message is what the edge reads of a JSON-RPC message.
type message struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// messagesOf decodes a POST's body (one message or a batch) when it may
// hold a call or a cancellation; nil otherwise.
func messagesOf(body []byte) []message {
	if !bytes.Contains(body, []byte("tools/call")) && !bytes.Contains(body, []byte("notifications/cancelled")) {
		return nil
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []message
		if json.Unmarshal(trimmed, &batch) != nil {
			return nil
		}
		return batch
	}
	var m message
	if json.Unmarshal(trimmed, &m) != nil {
		return nil
	}
	return []message{m}
}

// idOf writes a JSON-RPC id (a string or a number) one way, so the id of
// a call and the requestId of its cancellation compare equal.
func idOf(raw json.RawMessage) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if len(raw) == 0 || d.Decode(&v) != nil {
		return "", false
	}
	switch id := v.(type) {
	case string:
		return "s" + id, true
	case json.Number:
		if f, err := id.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return "n" + strconv.FormatInt(int64(f), 10), true // 7 and 7.0 are one id
		}
		return "n" + id.String(), true
	}
	return "", false
}
