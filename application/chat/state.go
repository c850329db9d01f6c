package chat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	ucb "github.com/cloudwego/eino/utils/callbacks"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// runState is what one run learns as it goes, fed by the model callbacks
// and the tool middleware: the transcript, the messages to keep, the
// tokens used and the client tool calls it stopped for.
type runState struct {
	s *Service
	t *turn

	mu         sync.Mutex
	lastInput  []*schema.Message // what the model saw last
	lastOutput *schema.Message   // the model's last complete message, or a tool's direct answer
	calling    *schema.Message   // the model's message whose tool calls run now
	results    []*schema.Message // tool messages of the current round
	pending    []conversation.ToolCall
	out        []*conversation.Message // the assistant's messages, to store
	usage      conversation.Usage
	answer     *conversation.Message // the answer being streamed
	text       strings.Builder
	modelStart time.Time
	direct     string // the call id of a tool that answers for the bot
	asked      *askedTool
	askedFrom  []*schema.Message // the transcript an open question resumes, kept across turns
	// modelFailed: a model call failed, so the run's error is the model's.
	modelFailed bool
	// sources are the documents recalled for the answer, cited at its end
	// when the bot shows its sources.
	sources []string
}

// failModel notes that a model call failed.
func (rs *runState) failModel() {
	rs.mu.Lock()
	rs.modelFailed = true
	rs.mu.Unlock()
}

// askedTool is a tool call that ended the turn with a question for the
// end user; the next message of the conversation answers it. Question is
// the text the end user saw; Exchanges are the questions the same call
// asked and had answered before it.
type askedTool struct {
	CallID    string     `json:"call_id"`
	Name      string     `json:"name"`
	Payload   string     `json:"payload"`
	Question  string     `json:"question,omitempty"`
	Exchanges []exchange `json:"exchanges,omitempty"`
}

type runKey struct{}

// runFrom returns the run a tool call belongs to.
func runFrom(ctx context.Context) *runState {
	rs, _ := ctx.Value(runKey{}).(*runState)
	return rs
}

func (rs *runState) handler() callbacks.Handler {
	return ucb.NewHandlerHelper().ChatModel(&ucb.ModelCallbackHandler{
		OnStart: func(ctx context.Context, _ *callbacks.RunInfo, in *model.CallbackInput) context.Context {
			rs.startModel(ctx, in.Messages)
			return ctx
		},
		OnEnd: func(ctx context.Context, _ *callbacks.RunInfo, out *model.CallbackOutput) context.Context {
			if out.Message != nil && out.Message.Content != "" {
				rs.delta(ctx, out.Message.Content)
			}
			rs.endModel(ctx, out.Message, tokenUsage(out))
			return ctx
		},
		OnEndWithStreamOutput: func(ctx context.Context, _ *callbacks.RunInfo, sr *schema.StreamReader[*model.CallbackOutput]) context.Context {
			rs.readModelStream(ctx, sr)
			return ctx
		},
		OnError: func(ctx context.Context, _ *callbacks.RunInfo, err error) context.Context {
			rs.failModel()
			rs.s.hook(ctx, Step{Kind: StepModelEnd, ChatID: rs.t.chat.ID, BotID: rs.t.chat.BotID, ModelID: rs.t.compiled.modelID,
				Duration: time.Since(rs.modelStart), Err: err})
			return ctx
		},
	}).Handler()
}

func (rs *runState) startModel(ctx context.Context, msgs []*schema.Message) {
	rs.mu.Lock()
	rs.lastInput = msgs
	rs.calling = nil
	rs.results = nil
	rs.modelStart = time.Now()
	rs.mu.Unlock()
	rs.s.hook(ctx, Step{Kind: StepModelStart, ChatID: rs.t.chat.ID, BotID: rs.t.chat.BotID, ModelID: rs.t.compiled.modelID, Input: msgs})
}

// readModelStream reads the callback's copy of a streamed model answer as
// it arrives, so text deltas reach the client with no added delay. It runs
// on the graph's goroutine, so the message is complete (and its events
// sent) before any tool of it runs.
func (rs *runState) readModelStream(ctx context.Context, sr *schema.StreamReader[*model.CallbackOutput]) {
	defer sr.Close()
	var chunks []*schema.Message
	var usage conversation.Usage
	for {
		o, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rs.failModel()
			return // the graph sees the same error and fails the run
		}
		if o.Message != nil {
			chunks = append(chunks, o.Message)
			if o.Message.Content != "" {
				rs.delta(ctx, o.Message.Content)
			}
		}
		if u := tokenUsage(o); u.Total() > 0 {
			usage = u
		}
	}
	full, err := schema.ConcatMessages(chunks)
	if err != nil {
		return
	}
	rs.endModel(ctx, full, usage)
}

func tokenUsage(o *model.CallbackOutput) conversation.Usage {
	if o.TokenUsage != nil {
		return conversation.Usage{InputTokens: o.TokenUsage.PromptTokens, OutputTokens: o.TokenUsage.CompletionTokens}
	}
	if o.Message != nil && o.Message.ResponseMeta != nil && o.Message.ResponseMeta.Usage != nil {
		u := o.Message.ResponseMeta.Usage
		return conversation.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	}
	return conversation.Usage{}
}

func (rs *runState) delta(ctx context.Context, text string) {
	rs.mu.Lock()
	if rs.answer == nil {
		rs.answer = rs.t.newMessage(rs.s, conversation.TypeAnswer, "")
		rs.text.Reset()
	}
	rs.text.WriteString(text)
	d := *rs.answer
	d.Content = text
	rs.mu.Unlock()
	rs.t.sink.Send(Event{Kind: EventMessageDelta, Message: &d})
	rs.s.hook(ctx, Step{Kind: StepTextDelta, ChatID: rs.t.chat.ID, BotID: rs.t.chat.BotID, Text: text})
}

// endModel completes the model's message: its text as an answer (also when
// tool calls follow it) and one function_call message per tool call.
func (rs *runState) endModel(ctx context.Context, full *schema.Message, usage conversation.Usage) {
	if full != nil {
		rs.citeSources(ctx, len(full.ToolCalls))
	}
	rs.mu.Lock()
	rs.lastOutput = full
	if full != nil && len(full.ToolCalls) > 0 {
		rs.calling = full
	}
	rs.usage = rs.usage.Add(usage)
	var done []*conversation.Message
	if rs.answer != nil {
		rs.answer.Content = rs.text.String()
		if full != nil {
			rs.answer.ReasoningContent = full.ReasoningContent
		}
		done = append(done, rs.answer)
		rs.answer = nil
	}
	if full != nil {
		for _, tc := range full.ToolCalls {
			done = append(done, rs.t.newMessage(rs.s, conversation.TypeFunctionCall, functionCallContent(tc)))
		}
	}
	rs.out = append(rs.out, done...)
	dur := time.Since(rs.modelStart)
	rs.mu.Unlock()
	for _, m := range done {
		rs.t.sink.Send(Event{Kind: EventMessageDone, Message: m})
	}
	rs.s.hook(ctx, Step{Kind: StepModelEnd, ChatID: rs.t.chat.ID, BotID: rs.t.chat.BotID, ModelID: rs.t.compiled.modelID,
		Usage: usage, Duration: dur, Output: full})
}

func functionCallContent(tc schema.ToolCall) string {
	var args any = tc.Function.Arguments
	var parsed map[string]any
	if json.Unmarshal([]byte(tc.Function.Arguments), &parsed) == nil {
		args = parsed
	}
	b, _ := json.Marshal(map[string]any{"id": tc.ID, "name": tc.Function.Name, "arguments": args})
	return string(b)
}

func (rs *runState) toolCall(ctx context.Context, name, callID, args string) {
	rs.s.hook(ctx, Step{Kind: StepToolCall, ChatID: rs.t.chat.ID, BotID: rs.t.chat.BotID, ToolName: name, ToolCallID: callID, Arguments: args})
}

// toolResult records a server tool's result as a tool_response message;
// client tools have none until the caller submits it.
func (rs *runState) toolResult(ctx context.Context, name, callID, args, result string, dur time.Duration, err error) {
	rs.s.hook(ctx, Step{Kind: StepToolResult, ChatID: rs.t.chat.ID, BotID: rs.t.chat.BotID, ToolName: name, ToolCallID: callID,
		Arguments: args, Text: result, Duration: dur, Err: err})
	if rs.t.compiled.clientTools[name] {
		return
	}
	rs.mu.Lock()
	direct := rs.direct != "" && rs.direct == callID
	rs.mu.Unlock()
	if direct {
		question := rs.directAnswer(ctx, result)
		if r := rs.s.d.Resumer; r != nil && r.Asks(result) {
			rs.mu.Lock()
			rs.asked = &askedTool{CallID: callID, Name: name, Payload: result, Question: question}
			rs.mu.Unlock()
		}
		return
	}
	m := rs.t.newMessage(rs.s, conversation.TypeToolResponse, result)
	rs.mu.Lock()
	rs.results = append(rs.results, schema.ToolMessage(result, callID, schema.WithToolName(name)))
	rs.out = append(rs.out, m)
	rs.mu.Unlock()
	rs.t.sink.Send(Event{Kind: EventMessageDone, Message: m})
}

// waitFor notes a client tool call the run stops for.
func (rs *runState) waitFor(callID, name, args string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.pending = append(rs.pending, conversation.ToolCall{ID: callID, Name: name, Arguments: args})
}
