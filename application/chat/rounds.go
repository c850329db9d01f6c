package chat

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// rounds runs the model and tool rounds of a turn. A turn that answers a
// tool's open question resumes that tool first (question.go); a new turn
// recalls knowledge first (recall.go), and a no-recall reply answers
// without the model. When the rounds run out with no client tool call
// open, lastCall gives the answer.
func (s *Service) rounds(ctx context.Context, t *turn, rs *runState) error {
	var err error
	if t.resume != nil {
		err = s.resumeTool(ctx, t, rs)
	} else if !s.autoRecall(ctx, t, rs) {
		err = s.runAgent(ctx, t, rs)
	}
	if errors.Is(err, compose.ErrExceedMaxSteps) && len(rs.pending) == 0 {
		err = s.lastCall(ctx, t, rs)
	}
	return err
}

// runAgent runs the compiled agent over the turn's input; what happens
// reaches rs through the model callbacks (callbacks.go) and the tool
// middleware (tools.go).
func (s *Service) runAgent(ctx context.Context, t *turn, rs *runState) error {
	opts := []agent.AgentOption{
		agent.WithComposeOptions(compose.WithCallbacks(rs.handler())),
		react.WithChatModelOptions(slices.Concat(t.compiled.options, t.compiled.agentOptions, t.compiled.format)...),
	}
	sr, err := t.compiled.agent.Stream(ctx, t.input, opts...)
	if err != nil {
		return err
	}
	defer sr.Close()
	for {
		if _, err := sr.Recv(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// lastCall gives the user an answer when the tool rounds ran out: one more
// model call over what the agent knows, without tools.
func (s *Service) lastCall(ctx context.Context, t *turn, rs *runState) error {
	rs.mu.Lock()
	in := append([]*schema.Message{}, rs.lastInput...)
	rs.mu.Unlock()
	in = append(in, schema.SystemMessage("You cannot call tools any more in this turn. Answer the user now with what you know."))
	rs.startModel(ctx, in)
	sr, err := t.compiled.model.Stream(ctx, in, slices.Concat(t.compiled.options, t.compiled.format)...)
	if err != nil {
		rs.failModel()
		return err
	}
	var chunks []*schema.Message
	for {
		m, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			sr.Close()
			rs.failModel()
			return err
		}
		chunks = append(chunks, m)
		if m.Content != "" {
			rs.delta(ctx, m.Content)
		}
	}
	sr.Close()
	full, err := schema.ConcatMessages(chunks)
	if err != nil {
		return err
	}
	var usage conversation.Usage
	if full.ResponseMeta != nil && full.ResponseMeta.Usage != nil {
		usage = conversation.Usage{InputTokens: full.ResponseMeta.Usage.PromptTokens, OutputTokens: full.ResponseMeta.Usage.CompletionTokens}
	}
	full.ToolCalls = nil
	rs.endModel(ctx, full, usage)
	return nil
}
