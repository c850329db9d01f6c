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

// MCPServer is where an MCP plugin connects: a URL (streamable or sse
// transport) or a command run in a sandbox (stdio transport).
type MCPServer struct {
	URL       string
	Transport string // "streamable", "sse" or "stdio"
	Headers   map[string]string
	// Command, Args and Env are what a stdio server runs.
	Command string
	Args    []string
	Env     map[string]string
}

// MCPTool is a tool an MCP server offers.
type MCPTool struct {
	Name        string
	Description string
	InputSchema map[string]any
}

// MCPSession is a connection to an MCP server; it is safe for concurrent
// calls. A session may also have an Alive() bool method: one that
// reports false (a stdio server's process ended) is replaced on the next
// call.
type MCPSession interface {
	ListTools(ctx context.Context) ([]MCPTool, error)
	// CallTool runs a tool and returns its text; a tool that reports an
	// error fails with it.
	CallTool(ctx context.Context, name string, args map[string]any) (string, error)
	Close()
}

// MCPDialer connects to MCP servers: over HTTP through the guarded
// client, or by starting a stdio server's sandboxed process.
type MCPDialer interface {
	Dial(ctx context.Context, s MCPServer) (MCPSession, error)
}

// defaultSessionIdle is how long an unused MCP session (for a stdio
// server, its process) is kept when Deps.MCPIdle is 0.
const defaultSessionIdle = 5 * time.Minute

// sessionPool keeps one open session per MCP plugin, so a call does not
// pay the protocol's handshake (nor, for a stdio server, the process's
// start); a session whose server, transport or credentials changed is
// replaced, one whose process died is started again, and one left unused
// for the idle time is closed.
type sessionPool struct {
	dial    MCPDialer
	idle    time.Duration
	mu      sync.Mutex
	entries map[int64]*sessionEntry
}

type sessionEntry struct {
	key      string
	sess     MCPSession
	lastUsed time.Time
	inUse    int
	timer    *time.Timer
}

func newSessionPool(d MCPDialer, idle time.Duration) *sessionPool {
	if idle <= 0 {
		idle = defaultSessionIdle
	}
	return &sessionPool{dial: d, idle: idle, entries: map[int64]*sessionEntry{}}
}

func serverKey(s MCPServer) string {
	var b strings.Builder
	b.WriteString(s.URL + "\x00" + s.Transport + "\x00" + s.Command)
	for _, a := range s.Args {
		b.WriteString("\x00a" + a)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		b.WriteString("\x00h" + k + "=" + s.Headers[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		b.WriteString("\x00e" + k + "=" + s.Env[k])
	}
	h := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(h[:])
}

// alive reports whether a session can still be used.
func alive(sess MCPSession) bool {
	a, ok := sess.(interface{ Alive() bool })
	return !ok || a.Alive()
}

// session returns the open session of a plugin, dialing when there is
// none for this server, and the release to call when the call is done
// (the idle time counts from the last release).
func (p *sessionPool) session(ctx context.Context, pluginID int64, s MCPServer) (MCPSession, func(), error) {
	key := serverKey(s)
	if sess := p.take(pluginID, key); sess != nil {
		return sess, p.releaser(pluginID, sess), nil
	}
	sess, err := p.dial.Dial(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[pluginID]; ok && e.key == key && alive(e.sess) {
		go sess.Close() // another call dialed meanwhile
		e.inUse++
		return e.sess, p.releaser(pluginID, e.sess), nil
	} else if ok {
		p.remove(pluginID, e)
	}
	e := &sessionEntry{key: key, sess: sess, lastUsed: time.Now(), inUse: 1}
	e.timer = time.AfterFunc(p.idle, func() { p.expire(pluginID, sess) })
	p.entries[pluginID] = e
	return sess, p.releaser(pluginID, sess), nil
}

// take returns the pooled live session for key, marked in use.
func (p *sessionPool) take(pluginID int64, key string) MCPSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[pluginID]
	if !ok {
		return nil
	}
	if e.key != key || !alive(e.sess) {
		p.remove(pluginID, e)
		return nil
	}
	e.inUse++
	e.lastUsed = time.Now()
	return e.sess
}

func (p *sessionPool) releaser(pluginID int64, sess MCPSession) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if e, ok := p.entries[pluginID]; ok && e.sess == sess {
				e.inUse--
				e.lastUsed = time.Now()
				e.timer.Reset(p.idle)
			}
		})
	}
}

// expire closes a session left unused for the idle time; one in use or
// used since is looked at again later.
func (p *sessionPool) expire(pluginID int64, sess MCPSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[pluginID]
	if !ok || e.sess != sess {
		return
	}
	if left := p.idle - time.Since(e.lastUsed); e.inUse > 0 || left > 0 {
		e.timer.Reset(max(left, time.Second))
		return
	}
	p.remove(pluginID, e)
}

// remove forgets an entry and closes its session in the background
// (closing a stdio server waits for its process). The caller holds mu.
func (p *sessionPool) remove(pluginID int64, e *sessionEntry) {
	delete(p.entries, pluginID)
	e.timer.Stop()
	go e.sess.Close()
}

// drop forgets a session that failed, so the next call dials again.
func (p *sessionPool) drop(pluginID int64, sess MCPSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[pluginID]; ok && e.sess == sess {
		p.remove(pluginID, e)
	}
}

// closeAll closes every session and waits for them to end.
func (p *sessionPool) closeAll() {
	p.mu.Lock()
	list := make([]MCPSession, 0, len(p.entries))
	for id, e := range p.entries {
		e.timer.Stop()
		list = append(list, e.sess)
		delete(p.entries, id)
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Go(s.Close)
	}
	wg.Wait()
}
