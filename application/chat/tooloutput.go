package chat

import (
	"context"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// ToolOutput lets a tool speak in the chat it runs in: stream the bot's
// answer as it is produced (a workflow that returns text), add
// intermediate messages (a workflow's message-output nodes), or end the
// turn with its result as the answer.
type ToolOutput struct {
	ctx    context.Context
	rs     *runState
	callID string
}

// OutputFrom returns the chat output of the tool call ctx belongs to; ok is
// false outside a chat run (a workflow test run, say).
func OutputFrom(ctx context.Context) (*ToolOutput, bool) {
	rs := runFrom(ctx)
	if rs == nil {
		return nil, false
	}
	return &ToolOutput{ctx: ctx, rs: rs, callID: compose.GetToolCallID(ctx)}, true
}

// AnswerDelta streams a piece of the bot's answer.
func (o *ToolOutput) AnswerDelta(text string) {
	if text != "" {
		o.rs.delta(o.ctx, text)
	}
}

// Message adds a complete intermediate answer message, before the final
// one, as Coze shows a workflow's output messages.
func (o *ToolOutput) Message(content string) {
	m := o.rs.t.newMessage(o.rs.s, conversation.TypeAnswer, content)
	o.rs.mu.Lock()
	o.rs.out = append(o.rs.out, m)
	o.rs.mu.Unlock()
	o.rs.t.sink.Send(Event{Kind: EventMessageDone, Message: m})
}

// AnswerDirectly ends the turn after this tool call: its result is the
// bot's answer (streamed already through AnswerDelta, or sent whole) and
// the model is not called again.
func (o *ToolOutput) AnswerDirectly() error {
	if o.callID == "" {
		return nil // resuming a tool outside the agent: the turn ends anyway
	}
	o.rs.mu.Lock()
	o.rs.direct = o.callID
	o.rs.mu.Unlock()
	return react.SetReturnDirectly(o.ctx)
}

// directAnswer completes the answer of a tool that answers for the bot:
// what it streamed, or its whole result when it streamed nothing. It
// returns the answer's text.
func (rs *runState) directAnswer(ctx context.Context, result string) string {
	rs.mu.Lock()
	if rs.answer == nil {
		rs.answer = rs.t.newMessage(rs.s, conversation.TypeAnswer, "")
		rs.text.Reset()
		rs.text.WriteString(result)
		d := *rs.answer
		d.Content = result
		rs.mu.Unlock()
		rs.t.sink.Send(Event{Kind: EventMessageDelta, Message: &d})
		rs.mu.Lock()
	}
	m := rs.answer
	m.Content = rs.text.String()
	rs.answer = nil
	rs.out = append(rs.out, m)
	rs.lastOutput = schema.AssistantMessage(m.Content, nil)
	rs.mu.Unlock()
	rs.t.sink.Send(Event{Kind: EventMessageDone, Message: m})
	return m.Content
}
