package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// MCPServer is where an MCP plugin connects.
type MCPServer struct {
	URL       string
	Transport string // "streamable" or "sse"
	Headers   map[string]string
}

// MCPTool is a tool an MCP server offers.
type MCPTool struct {
	Name        string
	Description string
	InputSchema map[string]any
}

// MCPSession is a connection to an MCP server; it is safe for concurrent
// calls.
type MCPSession interface {
	ListTools(ctx context.Context) ([]MCPTool, error)
	// CallTool runs a tool and returns its text; a tool that reports an
	// error fails with it.
	CallTool(ctx context.Context, name string, args map[string]any) (string, error)
	Close()
}

// MCPDialer connects to MCP servers through the guarded HTTP client.
type MCPDialer interface {
	Dial(ctx context.Context, s MCPServer) (MCPSession, error)
}

// sessionIdle is how long an unused MCP session is kept open.
const sessionIdle = 5 * time.Minute

// sessionPool keeps one open session per MCP plugin, so a call does not
// pay the protocol's handshake; a session whose server, transport or
// credentials changed is replaced.
type sessionPool struct {
	dial    MCPDialer
	now     func() time.Time
	mu      sync.Mutex
	entries map[int64]*sessionEntry
}

type sessionEntry struct {
	key      string
	sess     MCPSession
	lastUsed time.Time
}

func newSessionPool(d MCPDialer, now func() time.Time) *sessionPool {
	return &sessionPool{dial: d, now: now, entries: map[int64]*sessionEntry{}}
}

func serverKey(s MCPServer) string {
	var b strings.Builder
	b.WriteString(s.URL + "\x00" + s.Transport)
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		b.WriteString("\x00" + k + "=" + s.Headers[k])
	}
	h := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(h[:])
}

// session returns the open session of a plugin, dialing when there is
// none for this server.
func (p *sessionPool) session(ctx context.Context, pluginID int64, s MCPServer) (MCPSession, error) {
	key := serverKey(s)
	if sess := p.take(pluginID, key); sess != nil {
		return sess, nil
	}
	sess, err := p.dial.Dial(ctx, s)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[pluginID]; ok && e.key == key {
		sess.Close() // another call dialed meanwhile
		e.lastUsed = p.now()
		return e.sess, nil
	} else if ok {
		e.sess.Close()
	}
	p.entries[pluginID] = &sessionEntry{key: key, sess: sess, lastUsed: p.now()}
	return sess, nil
}

// take returns the pooled session for key, and closes sessions left idle.
func (p *sessionPool) take(pluginID int64, key string) MCPSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for id, e := range p.entries {
		if now.Sub(e.lastUsed) > sessionIdle {
			e.sess.Close()
			delete(p.entries, id)
		}
	}
	if e, ok := p.entries[pluginID]; ok && e.key == key {
		e.lastUsed = now
		return e.sess
	}
	return nil
}

// drop forgets a session that failed, so the next call dials again.
func (p *sessionPool) drop(pluginID int64, sess MCPSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[pluginID]; ok && e.sess == sess {
		delete(p.entries, pluginID)
		sess.Close()
	}
}

func (p *sessionPool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, e := range p.entries {
		e.sess.Close()
		delete(p.entries, id)
	}
}
