// Package chat is the agent runtime: per chat turn it assembles a bot into
// an eino ReAct agent (cached per bot version), runs it over the
// conversation, streams what happens as events, keeps every message, and
// stops for client tools until their outputs are submitted.
package chat

import (
	"context"
	"log/slog"
	"sync"
	"time"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// Deps is what the runtime needs.
type Deps struct {
	Bots          Bots
	Conversations Conversations
	Messages      conversation.MessageStore
	Chats         ChatStore
	Models        Models
	ChatModels    ChatModels
	IDs           IDs
	Broadcaster   Broadcaster  // carries cancels between processes; nil: this process only
	Tools         []ToolSource // plugins, tables, workflows
	Resumer       ToolResumer  // tools that ask the end user (workflow questions); may be nil
	Published     Published    // versions published to channels; nil: StartForChannel fails
	Files         Files        // uploaded files named by file_id; nil: file ids are named as text
	Knowledge     Recaller     // the knowledge bots bind; nil: recalls fail and turns go on without
	Hooks         []Hook
	Limits        convapp.TextLimits // the message and history limits; zero: the defaults
	URLs          URLChecker         // the egress policy for image URLs; nil: not checked
	Log           *slog.Logger
	Now           func() time.Time
	// ToolTimeout bounds one tool call; 0 means 60s.
	ToolTimeout time.Duration
	// AgentCacheSize bounds the compiled agents kept; 0 means 512.
	AgentCacheSize int
	// SubAgents bounds sub-agents: depth and model calls a turn.
	SubAgents SubAgentLimits
	// Opener opens the conversations sub-agents run in; nil: calling a
	// sub-agent fails.
	Opener ConversationOpener
	// MaxHandoffs bounds the transfers of one turn; 0 means
	// DefaultMaxHandoffs.
	MaxHandoffs int
	// ActiveBots records the bot a conversation was handed to; nil: a
	// handoff lasts only for the turn.
	ActiveBots ActiveBots
}

// Service runs chats.
type Service struct {
	d       Deps
	agents  *agentCache
	mu      sync.Mutex
	running map[int64]context.CancelFunc // chats running in this process
	wg      sync.WaitGroup               // background runs, for Close
}

// cancelChannel is where cancel requests go, for every process to hear.
const cancelChannel = "chat.cancel"

// New returns the runtime. Call Listen to hear cancels from other
// processes, and Close to wait for background runs on shutdown.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.ToolTimeout <= 0 {
		d.ToolTimeout = 60 * time.Second
	}
	d.Limits = d.Limits.WithDefaults()
	d.SubAgents = d.SubAgents.withDefaults()
	if d.MaxHandoffs <= 0 {
		d.MaxHandoffs = DefaultMaxHandoffs
	}
	if d.AgentCacheSize <= 0 {
		d.AgentCacheSize = 512
	}
	s := &Service{d: d, agents: newAgentCache(d.AgentCacheSize), running: map[int64]context.CancelFunc{}}
	s.d.Resumer = subAgentResumer{s: s, inner: d.Resumer} // sub-agents' questions, then the tools'
	return s
}

// Close waits until the runs started in the background have finished or
// ctx ends.
func (s *Service) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) hook(ctx context.Context, st Step) {
	if rs := runFrom(ctx); rs != nil {
		st.WorkspaceID = rs.t.chat.WorkspaceID
		st.ChatBotID = rs.t.chat.BotID
		if st.ToolName != "" {
			st.ToolOrigin = rs.t.compiled.origins[st.ToolName]
			st.ToolDescription = rs.t.compiled.descriptions[st.ToolName]
		}
		if st.Kind == StepTurnStart || st.Kind == StepModelStart {
			st.Bot = rs.t.cfg // after a handoff, the answering bot's
		}
	}
	for _, h := range s.d.Hooks {
		h.OnStep(ctx, st)
	}
}
