package trace

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/bot"
)

// Recorder takes finished traces; *Writer implements it. Record must not
// block.
type Recorder interface {
	Record(t *Trace)
}

// Chats builds the trace of every chat turn from the runtime's steps (it
// is a chat.Hook) and hands it to a Recorder when the turn ends. Workflow
// runs called as a bot's tool nest under that tool's span (Attach), and so
// do the turns of sub-agents.
type Chats struct {
	rec    Recorder
	models Models // nil: model ids only
	now    func() time.Time
	mu     sync.Mutex
	open   map[int64]*building // by chat id
}

// building is the trace of a turn still running.
type building struct {
	trace   Trace
	call    callInfo         // what every model call of the turn shares
	usage   [2]int           // input and output tokens of the turn's model calls
	model   *Span            // the model call running, if any
	skipped bool             // the running model call was left out (full trace)
	ttft    bool             // the running model call has sent text
	tools   map[string]*Span // tool calls running, by call id
	spans   int
	dropped int
	// parent is the caller's tool call a sub-agent's turn runs for; its
	// trace nests under that call's span.
	parent chat.SubAgentCall
}

// NewChats returns the chat hook that records into rec; models (may be
// nil) describes the models the turns call.
func NewChats(rec Recorder, models Models) *Chats {
	return &Chats{rec: rec, models: models, now: time.Now, open: map[int64]*building{}}
}

var _ chat.Hook = (*Chats)(nil)

// OnStep records one step of a turn.
func (c *Chats) OnStep(ctx context.Context, s chat.Step) {
	now := c.now()
	switch s.Kind {
	case chat.StepTurnStart:
		c.start(ctx, s, now)
	case chat.StepTurnEnd:
		c.end(s, now)
	default:
		c.step(ctx, s, now)
	}
}

func (c *Chats) start(ctx context.Context, s chat.Step, now time.Time) {
	b := &building{tools: map[string]*Span{}, spans: 1}
	b.call.model = lookupModel(ctx, c.models, s.ModelID)
	b.call.params(s.Bot)
	root := newSpan(agentSpanName(s.Bot), KindChat, now)
	root.Attributes[AttrOperation] = OpInvokeAgent
	root.Attributes[AttrAgentID] = strconv.FormatInt(s.BotID, 10)
	root.Attributes[AttrChatID] = strconv.FormatInt(s.ChatID, 10)
	if s.Bot != nil {
		root.Attributes[AttrAgentName] = s.Bot.Name
		if s.Bot.Description != "" {
			root.Attributes[AttrAgentDescription] = s.Bot.Description
		}
	}
	b.trace = Trace{ID: s.ChatID, WorkspaceID: s.WorkspaceID, Kind: KindChat, Root: root}
	if sc, ok := bot.RunScopeFrom(ctx); ok {
		b.trace.WorkspaceID = sc.WorkspaceID
		b.call.conversation = strconv.FormatInt(sc.ConversationID, 10)
		root.Attributes[AttrAgentVersion] = agentVersion(sc.Version)
	}
	b.call.set(root)
	if s.Text == "resumed" {
		root.Attributes[AttrResumed] = true
	}
	b.parent, _ = chat.SubAgentCallFrom(ctx)
	c.mu.Lock()
	c.open[s.ChatID] = b
	c.mu.Unlock()
}

func (c *Chats) end(s chat.Step, now time.Time) {
	c.mu.Lock()
	b := c.open[s.ChatID]
	delete(c.open, s.ChatID)
	c.mu.Unlock()
	if b == nil {
		return
	}
	root := b.trace.Root
	if b.model != nil {
		b.model.finish(now, "the turn ended first")
	}
	for _, t := range b.tools {
		if t != nil {
			t.finish(now, "the turn ended first")
		}
	}
	root.Attributes[AttrOutcome] = s.Text
	root.Attributes[AttrInputTokens] = b.usage[0]
	root.Attributes[AttrOutputTokens] = b.usage[1]
	if b.dropped > 0 {
		root.Attributes[AttrDropped] = b.dropped
	}
	root.finish(now, errText(s.Err))
	if b.parent.ChatID != 0 && c.Attach(b.parent.ChatID, b.parent.CallID, root) {
		return // a sub-agent's turn: part of its caller's trace
	}
	c.rec.Record(&b.trace)
}

// step records a model or tool step; content is encoded, and a model
// looked up, before the lock.
func (c *Chats) step(ctx context.Context, s chat.Step, now time.Time) {
	var system, content string
	var call callInfo
	switch s.Kind {
	case chat.StepModelStart:
		system, content = encodeInput(s.Input)
		call = c.callOf(ctx, s)
	case chat.StepModelEnd:
		content = encodeOutput(s.Output)
	case chat.StepRetrieval:
		content = encodeRecalled(s.Recalled)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.open[s.ChatID]
	if b == nil {
		return
	}
	switch s.Kind {
	case chat.StepModelStart:
		b.modelStart(call, system, content, now)
	case chat.StepTextDelta:
		b.firstToken(now)
	case chat.StepModelEnd:
		b.modelEnd(s, content, now)
	case chat.StepToolCall:
		b.toolCall(s, now)
	case chat.StepToolResult:
		b.toolResult(s, now)
	case chat.StepRetrieval:
		b.retrieval(s, content, now)
	}
}

// callOf is what model call s shares with its turn: the turn's model,
// conversation and settings, or after a handoff the answering bot's model
// and settings. Only a model other than the turn's is looked up.
func (c *Chats) callOf(ctx context.Context, s chat.Step) callInfo {
	c.mu.Lock()
	b := c.open[s.ChatID]
	var call callInfo
	if b != nil {
		call = b.call
	}
	c.mu.Unlock()
	if b == nil {
		return call
	}
	if s.ModelID != "" && s.ModelID != call.model.id {
		call.model = lookupModel(ctx, c.models, s.ModelID)
	}
	if s.Bot != nil {
		call.params(s.Bot)
	}
	return call
}

// add puts sp under parent unless the trace is full.
func (b *building) add(parent, sp *Span) bool {
	if b.spans >= MaxSpans {
		b.dropped++
		return false
	}
	b.spans++
	parent.Children = append(parent.Children, sp)
	return true
}

// Attach nests the span of a workflow run under the running tool call
// callID of chat chatID (or, with no call id, its only running tool call).
// It reports whether it found the call.
func (c *Chats) Attach(chatID int64, callID string, sp *Span) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.open[chatID]
	if b == nil {
		return false
	}
	tool := b.tools[callID]
	if tool == nil && callID == "" && len(b.tools) == 1 {
		for _, t := range b.tools {
			tool = t
		}
	}
	if tool == nil {
		return false
	}
	n := sp.count()
	if b.spans+n > MaxSpans {
		b.dropped += n
		return false
	}
	b.spans += n
	tool.Children = append(tool.Children, sp)
	return true
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
