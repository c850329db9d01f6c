package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

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
//
// What it watches are the sessions that can hear it in this process: on
// one process, the SDK's sessions it holds; across processes, the
// sessions' streams open here (relay), whatever process opened them.
type notifier struct {
	svc     *mcpserver.Service
	log     *slog.Logger
	mu      sync.Mutex
	watched map[any]watched // by *sdk.Server or *relay
	wake    chan struct{}
}

// watched is one session the notifier tells of its changes.
type watched interface {
	live() bool
	caller() identity.Principal
	// last returns the fingerprints of the tools and prompts the session
	// last listed; "" for a list it never listed.
	last(ctx context.Context) (tools, prompts string)
	// saw records new fingerprints after the session was told.
	saw(ctx context.Context, tools, prompts string)
	toolsChanged()
	promptsChanged()
}

func newNotifier(svc *mcpserver.Service, log *slog.Logger) *notifier {
	return &notifier{svc: svc, log: log, watched: map[any]watched{}, wake: make(chan struct{}, 1)}
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

// add watches w under key until it is removed or no longer live.
func (n *notifier) add(key any, w watched) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.watched[key] = w
}

func (n *notifier) remove(key any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.watched, key)
}

// recheck lists again for every watched session and notifies those whose
// lists changed; it forgets the closed ones.
func (n *notifier) recheck(ctx context.Context) {
	n.mu.Lock()
	all := make([]watched, 0, len(n.watched))
	for k, w := range n.watched {
		if !w.live() {
			delete(n.watched, k)
			continue
		}
		all = append(all, w)
	}
	n.mu.Unlock()
	for _, w := range all {
		n.recheckOne(ctx, w)
	}
}

func (n *notifier) recheckOne(ctx context.Context, w watched) {
	lastTools, lastPrompts := w.last(ctx)
	if lastTools == "" && lastPrompts == "" {
		return // it listed nothing: nothing it saw can have changed
	}
	tools, prompts, err := n.lists(ctx, w.caller())
	if err != nil {
		n.log.DebugContext(ctx, "mcp: a session's lists could not be checked", "err", err)
		return
	}
	nowTools, nowPrompts := lastTools, lastPrompts
	if lastTools != "" {
		nowTools = fingerprint(tools)
	}
	if lastPrompts != "" {
		nowPrompts = fingerprint(prompts)
	}
	if nowTools == lastTools && nowPrompts == lastPrompts {
		return
	}
	if nowTools != lastTools {
		w.toolsChanged()
	}
	if nowPrompts != lastPrompts {
		w.promptsChanged()
	}
	w.saw(ctx, nowTools, nowPrompts)
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

// fingerprint sums a list as the client received it.
func fingerprint(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
