package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/application/mcpserver"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Changes delivers the tags of what changed, in this process and the
// others sharing the storage (invalidation.Hub).
type Changes interface {
	Watch(fn func(tags []string))
}

// settle is how long the notifier waits after a change for the ones that
// come with it (a publication drops several tags, and each process hears
// its own changes twice: at once, and from the bus).
const settle = 100 * time.Millisecond

// notifier tells open sessions that their lists changed: when a bot or a
// workflow changes anywhere, it lists again, with each session's own
// rights, what the session last listed, and sends
// notifications/tools/list_changed (and resources') or
// notifications/prompts/list_changed to the sessions whose list is no
// longer what they saw. A session is only told of its own lists, so no
// session learns of a change in a workspace it does not reach.
type notifier struct {
	svc  *mcpserver.Service
	log  *slog.Logger
	mu   sync.Mutex
	seen map[*sdk.Server]*seenLists
	wake chan struct{}
}

// seenLists is what one session (its own server) last listed.
type seenLists struct {
	caller  identity.Principal
	tools   string // fingerprint; "" until listed
	prompts string
}

func newNotifier(svc *mcpserver.Service, log *slog.Logger) *notifier {
	return &notifier{svc: svc, log: log, seen: map[*sdk.Server]*seenLists{}, wake: make(chan struct{}, 1)}
}

// watch starts listening to changes until ctx ends.
func (n *notifier) watch(ctx context.Context, changes Changes) {
	changes.Watch(func(tags []string) {
		for _, t := range tags {
			if t == "*" || strings.HasPrefix(t, "bot:") || strings.HasPrefix(t, "workflow:") {
				select {
				case n.wake <- struct{}{}:
				default:
				}
				return
			}
		}
	})
	go n.loop(ctx)
}

func (n *notifier) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(settle):
		}
		n.recheck(ctx)
	}
}

// listed records what a session's list showed.
func (n *notifier) listed(s *sdk.Server, p identity.Principal, tools, prompts any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	seen := n.seen[s]
	if seen == nil {
		seen = &seenLists{}
		n.seen[s] = seen
	}
	seen.caller = p
	if tools != nil {
		seen.tools = fingerprint(tools)
	}
	if prompts != nil {
		seen.prompts = fingerprint(prompts)
	}
}

// recheck lists again for every open session and notifies those whose
// lists changed; it forgets the closed ones.
func (n *notifier) recheck(ctx context.Context) {
	n.mu.Lock()
	servers := make(map[*sdk.Server]seenLists, len(n.seen))
	for s, seen := range n.seen {
		if !open(s) {
			delete(n.seen, s)
			continue
		}
		servers[s] = *seen
	}
	n.mu.Unlock()
	for s, seen := range servers {
		tools, prompts, err := n.lists(ctx, seen.caller)
		if err != nil {
			n.log.DebugContext(ctx, "mcp: a session's lists could not be checked", "err", err)
			continue
		}
		if seen.tools != "" && fingerprint(tools) != seen.tools {
			nudgeTools(s)
		}
		if seen.prompts != "" && fingerprint(prompts) != seen.prompts {
			nudgePrompts(s)
		}
		n.listed(s, seen.caller, tools, prompts)
	}
}

func (n *notifier) lists(ctx context.Context, p identity.Principal) (any, any, error) {
	tools, err := n.svc.Tools(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	prompts, err := n.svc.Prompts(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	return tools, prompts, nil
}

func open(s *sdk.Server) bool {
	for range s.Sessions() {
		return true
	}
	return false
}

func fingerprint(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return string(sum[:])
}

// The SDK sends a server's list_changed notifications to its sessions when
// its own lists change; every session has a server of its own, so adding
// and removing a placeholder tells exactly that session (the SDK folds
// the two changes into one notification). The placeholders are never
// listed: the middleware answers every list.
const placeholder = "pergola_list_changed"

func nudgeTools(s *sdk.Server) {
	s.AddTool(&sdk.Tool{Name: placeholder, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	s.RemoveTools(placeholder)
	s.AddResource(&sdk.Resource{URI: "pergola://" + placeholder, Name: placeholder},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{}, nil
		})
	s.RemoveResources("pergola://" + placeholder)
}

func nudgePrompts(s *sdk.Server) {
	s.AddPrompt(&sdk.Prompt{Name: placeholder},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{}, nil
		})
	s.RemovePrompts(placeholder)
}

// lists records, for the notifier, what one session's server answered;
// without a notifier it does nothing.
type lists struct {
	server *sdk.Server
	n      *notifier
}

func (l *lists) tools(p identity.Principal, list []mcpserver.Tool) {
	if l.n != nil {
		l.n.listed(l.server, p, list, nil)
	}
}

func (l *lists) prompts(p identity.Principal, list []mcpserver.Prompt) {
	if l.n != nil {
		l.n.listed(l.server, p, nil, list)
	}
}
