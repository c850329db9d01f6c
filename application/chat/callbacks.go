package chat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	ucb "github.com/cloudwego/eino/utils/callbacks"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// handler is the run's model callbacks: each model call of the agent
// reaches startModel, then endModel (through readModelStream when
// streamed), or fails.
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
			rs.s.hook(ctx, Step{Kind: StepModelEnd, ChatID: rs.t.chat.ID, BotID: rs.t.answering(), ModelID: rs.t.compiled.modelID,
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
	rs.s.hook(ctx, Step{Kind: StepModelStart, ChatID: rs.t.chat.ID, BotID: rs.t.answering(), ModelID: rs.t.compiled.modelID, Input: msgs})
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
	rs.s.hook(ctx, Step{Kind: StepTextDelta, ChatID: rs.t.chat.ID, BotID: rs.t.answering(), Text: text})
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
	rs.s.hook(ctx, Step{Kind: StepModelEnd, ChatID: rs.t.chat.ID, BotID: rs.t.answering(), ModelID: rs.t.compiled.modelID,
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
	rs.s.hook(ctx, Step{Kind: StepToolCall, ChatID: rs.t.chat.ID, BotID: rs.t.answering(), ToolName: name, ToolCallID: callID, Arguments: args})
}

// toolResult records a server tool's result as a tool_response message;
// client tools have none until the caller submits it.
func (rs *runState) toolResult(ctx context.Context, name, callID, args, result string, dur time.Duration, err error) {
	rs.s.hook(ctx, Step{Kind: StepToolResult, ChatID: rs.t.chat.ID, BotID: rs.t.answering(), ToolName: name, ToolCallID: callID,
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
