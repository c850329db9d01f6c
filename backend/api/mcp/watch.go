package mcp

import (
	"context"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/application/mcpserver"
	"github.com/pergola-ai/pergola/domain/identity"
)

// serverWatch is a session of this process's SDK, watched through its own
// server: what it last listed is kept here, and the SDK sends its
// notifications on the session's stream.
type serverWatch struct {
	server  *sdk.Server
	mu      sync.Mutex
	who     identity.Principal
	tools   string // fingerprint; "" until listed
	prompts string
	// Whether the placeholders are in the server's lists (nudgeTools).
	toolsToggled, promptsToggled bool
}

func (w *serverWatch) live() bool { return open(w.server) }

func (w *serverWatch) caller() identity.Principal {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.who
}

func (w *serverWatch) last(context.Context) (string, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tools, w.prompts
}

func (w *serverWatch) saw(_ context.Context, tools, prompts string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tools, w.prompts = tools, prompts
}

func (w *serverWatch) toolsChanged() {
	w.mu.Lock()
	defer w.mu.Unlock()
	nudgeTools(w.server, w.toolsToggled)
	w.toolsToggled = !w.toolsToggled
}

func (w *serverWatch) promptsChanged() {
	w.mu.Lock()
	defer w.mu.Unlock()
	nudgePrompts(w.server, w.promptsToggled)
	w.promptsToggled = !w.promptsToggled
}

// listed records what the session of server s listed ("" for a list it
// did not list this time).
func (n *notifier) listed(s *sdk.Server, p identity.Principal, tools, prompts string) {
	n.mu.Lock()
	w, ok := n.watched[s].(*serverWatch)
	if !ok {
		w = &serverWatch{server: s}
		n.watched[s] = w
	}
	n.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.who = p
	if tools != "" {
		w.tools = tools
	}
	if prompts != "" {
		w.prompts = prompts
	}
}

func open(s *sdk.Server) bool {
	for range s.Sessions() {
		return true
	}
	return false
}

// The SDK sends a server's list_changed notifications to its sessions when
// its own lists change; every session has a server of its own, so adding
// or removing a placeholder tells exactly that session. Each telling
// toggles the placeholder, one change for one notification: adding and
// removing it at once would be two changes, which the SDK folds into one
// only when they come within 10 ms. The placeholders are never listed:
// the middleware answers every list and call.
const placeholder = "pergola_list_changed"

func nudgeTools(s *sdk.Server, present bool) {
	if present {
		s.RemoveTools(placeholder)
		s.RemoveResources("pergola://" + placeholder)
		return
	}
	s.AddTool(&sdk.Tool{Name: placeholder, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	s.AddResource(&sdk.Resource{URI: "pergola://" + placeholder, Name: placeholder},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{}, nil
		})
}

func nudgePrompts(s *sdk.Server, present bool) {
	if present {
		s.RemovePrompts(placeholder)
		return
	}
	s.AddPrompt(&sdk.Prompt{Name: placeholder},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{}, nil
		})
}

// lists records what a session listed, for whoever tells it of changes:
// on one process the notifier, watching the session's own server; across
// processes the store every process reads (seen), by session id. With
// neither it does nothing.
type lists struct {
	server *sdk.Server
	n      *notifier
	seen   *seenStore
}

func (l *lists) tools(ctx context.Context, req sdk.Request, p identity.Principal, list []mcpserver.Tool) {
	l.record(ctx, req, p, fingerprint(list), "")
}

func (l *lists) prompts(ctx context.Context, req sdk.Request, p identity.Principal, list []mcpserver.Prompt) {
	l.record(ctx, req, p, "", fingerprint(list))
}

func (l *lists) record(ctx context.Context, req sdk.Request, p identity.Principal, tools, prompts string) {
	if l.n != nil {
		l.n.listed(l.server, p, tools, prompts)
	}
	if l.seen != nil {
		if id := sessionOf(req); id != "" {
			l.seen.record(ctx, id, tools, prompts)
		}
	}
}

// sessionOf is the Mcp-Session-Id a request came with, on whichever
// process serves it.
func sessionOf(req sdk.Request) string {
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		return extra.Header.Get(sessionHeader)
	}
	return ""
}
