package chat

import (
	"context"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// EventKind names what happened in a chat, as Coze's chat events do.
type EventKind string

// Event kinds, in the order a stream carries them.
const (
	EventChatCreated     EventKind = "conversation.chat.created"
	EventChatInProgress  EventKind = "conversation.chat.in_progress"
	EventMessageDelta    EventKind = "conversation.message.delta"
	EventMessageDone     EventKind = "conversation.message.completed"
	EventChatCompleted   EventKind = "conversation.chat.completed"
	EventChatFailed      EventKind = "conversation.chat.failed"
	EventRequiresAction  EventKind = "conversation.chat.requires_action"
	EventChatCanceled    EventKind = "conversation.chat.canceled"
	EventDone            EventKind = "done"
	EventWorkflowMessage EventKind = "workflow.message"
)

// Event is one step of a chat as a client sees it: Chat is set on chat
// events, Message on message events (on deltas its Content is the delta).
type Event struct {
	Kind    EventKind
	Chat    *conversation.Chat
	Message *conversation.Message
}

// Sink receives the events of one run. Send must not block for long: a
// slow or gone client must never stall the run.
type Sink interface {
	Send(e Event)
}

// StepKind names a step of the agent loop, for hooks.
type StepKind string

// Step kinds.
const (
	StepModelStart StepKind = "model_start"
	StepModelEnd   StepKind = "model_end"
	StepTextDelta  StepKind = "text_delta"
	StepToolCall   StepKind = "tool_call"
	StepToolResult StepKind = "tool_result"
	// StepTurnStart and StepTurnEnd bracket one run of a turn (a chat, or
	// its resumption with tool outputs or an answer); on StepTurnEnd Text
	// is the outcome (completed, failed, requires_action, question).
	// BotID is the bot answering on StepTurnStart (in a conversation
	// handed to another bot, that bot) and the chat's bot on StepTurnEnd.
	StepTurnStart StepKind = "turn_start"
	StepTurnEnd   StepKind = "turn_end"
	// StepRetrieval is one knowledge recall, after it ran: Text is the
	// query, Recalled what came back, ToolCallID the search tool's call
	// when the model asked for it ("" for an automatic recall).
	StepRetrieval StepKind = "retrieval"
)

// Step is what hooks see: every model call, text delta, tool call and tool
// result of a run, with timings and tokens.
type Step struct {
	Kind        StepKind
	ChatID      int64
	BotID       int64
	WorkspaceID int64 // the bot's workspace; set on every step of a run
	// ChatBotID is the chat's bot, set on every step of a run: after a
	// handoff BotID is the bot answering, while the chat, and the usage
	// it is counted in, stays the chat's bot's.
	ChatBotID int64
	ModelID   string
	Text      string // delta text, or a tool's result
	ToolName  string
	// ToolOrigin is where the tool comes from (see ToolOrigin), on
	// tool_call and tool_result.
	ToolOrigin string
	// ToolDescription is the tool's description as the model sees it, on
	// tool_call and tool_result.
	ToolDescription string
	ToolCallID      string
	Arguments       string
	// Input is what the model is sent (model_start); Output is its
	// complete message (model_end). Hooks must not change either.
	Input    []*schema.Message
	Output   *schema.Message
	Usage    conversation.Usage
	Duration time.Duration
	Err      error
	Recalled []knowledge.Recalled // on retrieval
	// KnowledgeIDs are the knowledge bases a retrieval searched.
	KnowledgeIDs []int64
	// Bot is the configuration the turn runs (turn_start), or the one
	// answering the call (model_start: after a handoff, the target's);
	// hooks must not change it.
	Bot *bot.Config
}

// ToolOrigin is implemented by tools that say where they come from, for
// hooks: a plugin tool answers its plugin's id, the others their kind
// (workflow, table, variable, client).
type ToolOrigin interface {
	ToolOrigin() string
}

// Hook observes the steps of every run (metrics, tracing, channels).
// OnStep is called on the run's goroutines and must be quick.
type Hook interface {
	OnStep(ctx context.Context, s Step)
}

// HookFunc adapts a function to Hook.
type HookFunc func(ctx context.Context, s Step)

// OnStep calls f.
func (f HookFunc) OnStep(ctx context.Context, s Step) { f(ctx, s) }

// discard is the sink of runs nobody streams (non-streamed chats).
type discard struct{}

func (discard) Send(Event) {}
