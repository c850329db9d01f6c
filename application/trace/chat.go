package trace

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

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
// runs called as a bot's tool nest under that tool's span (Attach).
type Chats struct {
	rec  Recorder
	now  func() time.Time
	mu   sync.Mutex
	open map[int64]*building // by chat id
}

// building is the trace of a turn still running.
type building struct {
	trace   Trace
	model   *Span            // the model call running, if any
	skipped bool             // the running model call was left out (full trace)
	ttft    bool             // the running model call has sent text
	tools   map[string]*Span // tool calls running, by call id
	spans   int
	dropped int
}

// NewChats returns the chat hook that records into rec.
func NewChats(rec Recorder) *Chats {
	return &Chats{rec: rec, now: time.Now, open: map[int64]*building{}}
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
		c.step(s, now)
	}
}

func (c *Chats) start(ctx context.Context, s chat.Step, now time.Time) {
	root := newSpan("invoke_agent "+strconv.FormatInt(s.BotID, 10), KindChat, now)
	root.Attributes[AttrOperation] = OpInvokeAgent
	root.Attributes[AttrAgentID] = strconv.FormatInt(s.BotID, 10)
	root.Attributes[AttrChatID] = strconv.FormatInt(s.ChatID, 10)
	root.Attributes[AttrRequestModel] = s.ModelID
	b := &building{trace: Trace{ID: s.ChatID, WorkspaceID: s.WorkspaceID, Kind: KindChat, Root: root}, tools: map[string]*Span{}, spans: 1}
	if sc, ok := bot.RunScopeFrom(ctx); ok {
		b.trace.WorkspaceID = sc.WorkspaceID
		root.Attributes[AttrConversation] = strconv.FormatInt(sc.ConversationID, 10)
	}
	if s.Text == "resumed" {
		root.Attributes[AttrResumed] = true
	}
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
	if b.dropped > 0 {
		root.Attributes[AttrDropped] = b.dropped
	}
	root.finish(now, errText(s.Err))
	c.rec.Record(&b.trace)
}

// step records a model or tool step; content is encoded before the lock.
func (c *Chats) step(s chat.Step, now time.Time) {
	var content string
	switch s.Kind {
	case chat.StepModelStart:
		content = encodeMessages(s.Input)
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
		b.modelStart(s, content, now)
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

func (b *building) modelStart(s chat.Step, prompt string, now time.Time) {
	sp := newSpan("chat "+s.ModelID, KindModel, now)
	sp.Attributes[AttrOperation] = OpChat
	sp.Attributes[AttrRequestModel] = s.ModelID
	sp.setText(AttrPrompt, prompt)
	b.model, b.ttft = nil, false
	if b.add(b.trace.Root, sp) {
		b.model = sp
	}
	b.skipped = b.model == nil
}

func (b *building) firstToken(now time.Time) {
	if b.model == nil || b.ttft {
		return
	}
	b.ttft = true
	b.model.Attributes[AttrTTFT] = float64(now.Sub(b.model.Start).Microseconds()) / 1000
}

func (b *building) modelEnd(s chat.Step, completion string, now time.Time) {
	sp, skipped := b.model, b.skipped
	b.model, b.skipped = nil, false
	if sp == nil && skipped {
		return
	}
	if sp == nil { // a call that failed before it started
		sp = newSpan("chat "+s.ModelID, KindModel, now.Add(-s.Duration))
		sp.Attributes[AttrOperation] = OpChat
		sp.Attributes[AttrRequestModel] = s.ModelID
		if !b.add(b.trace.Root, sp) {
			return
		}
	}
	sp.Attributes[AttrResponseModel] = s.ModelID
	sp.Attributes[AttrInputTokens] = s.Usage.InputTokens
	sp.Attributes[AttrOutputTokens] = s.Usage.OutputTokens
	if s.Output != nil {
		sp.setText(AttrCompletion, completion)
	}
	sp.finish(now, errText(s.Err))
}

func (b *building) toolCall(s chat.Step, now time.Time) {
	sp := newSpan("execute_tool "+s.ToolName, KindTool, now)
	sp.Attributes[AttrOperation] = OpExecuteTool
	sp.Attributes[AttrToolName] = s.ToolName
	sp.Attributes[AttrToolCallID] = s.ToolCallID
	sp.setText(AttrToolArgs, s.Arguments)
	setOrigin(sp, s.ToolOrigin)
	if b.add(b.trace.Root, sp) {
		b.tools[s.ToolCallID] = sp
	} else {
		b.tools[s.ToolCallID] = nil // left out: its result is too
	}
}

func (b *building) toolResult(s chat.Step, now time.Time) {
	sp, seen := b.tools[s.ToolCallID]
	delete(b.tools, s.ToolCallID)
	if seen && sp == nil {
		return
	}
	if sp == nil {
		b.toolCall(chat.Step{ToolName: s.ToolName, ToolCallID: s.ToolCallID, Arguments: s.Arguments}, now.Add(-s.Duration))
		sp = b.tools[s.ToolCallID]
		delete(b.tools, s.ToolCallID)
		if sp == nil {
			return
		}
	}
	sp.setText(AttrToolResult, s.Text)
	setOrigin(sp, s.ToolOrigin)
	sp.finish(now, errText(s.Err))
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

// setOrigin names where a tool comes from: its plugin's id for a plugin
// tool, its kind (workflow, table, ...) otherwise.
func setOrigin(sp *Span, origin string) {
	if origin == "" {
		return
	}
	if _, err := strconv.ParseInt(origin, 10, 64); err == nil {
		sp.Attributes[AttrPluginID] = origin
		return
	}
	sp.Attributes[AttrToolOrigin] = origin
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func encodeMessages(msgs []*schema.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	b, _ := json.Marshal(msgs)
	return string(b)
}

func encodeOutput(m *schema.Message) string {
	if m == nil {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}
