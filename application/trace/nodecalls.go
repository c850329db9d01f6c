package trace

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	wf "github.com/pergola-ai/pergola/workflow"
)

// modelCalls makes the span of an llm node a GenAI chat span: named
// "chat {model}", with the operation, provider, model, server, response
// and, captured, the messages, like a bot's model calls. The node's own
// attributes (pergola.node.*) stay.
type modelCalls struct {
	ctx          context.Context
	models       Models
	conversation string
	known        map[string]modelInfo
}

// calls returns the modelCalls of a run that ended with ctx.
func (w *Workflows) calls(ctx context.Context) *modelCalls {
	c := &modelCalls{ctx: ctx, models: w.models, known: map[string]modelInfo{}}
	if sc, ok := bot.RunScopeFrom(ctx); ok && sc.ConversationID != 0 {
		c.conversation = strconv.FormatInt(sc.ConversationID, 10)
	}
	return c
}

func (c *modelCalls) model(id string) modelInfo {
	m, ok := c.known[id]
	if !ok {
		m = lookupModel(c.ctx, c.models, id)
		c.known[id] = m
	}
	return m
}

// set turns sp into the chat span of call; a nil call leaves it.
func (c *modelCalls) set(sp *Span, call *wf.ModelCall) {
	if call == nil {
		return
	}
	info := callInfo{model: c.model(call.ModelID), conversation: c.conversation}
	sp.Name = OpChat + " " + info.model.name
	sp.Attributes[AttrOperation] = OpChat
	info.set(sp)
	if call.Stream {
		sp.Attributes[AttrRequestStream] = true
	}
	if call.ResponseID != "" {
		sp.Attributes[AttrResponseID] = call.ResponseID
	}
	if len(call.FinishReasons) > 0 {
		sp.Attributes[AttrFinishReasons] = call.FinishReasons
	}
	if _, ok := sp.Attributes[AttrInputTokens]; !ok {
		sp.Attributes[AttrInputTokens] = int64(0)
		sp.Attributes[AttrOutputTokens] = int64(0)
	}
	system, history := encodeInput(call.Input)
	if system != "" {
		sp.setText(AttrSystem, system)
	}
	sp.setText(AttrPrompt, history)
	if call.Output != nil {
		sp.setText(AttrCompletion, encodeOutput(call.Output))
	}
}
