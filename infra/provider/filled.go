package provider

import (
	"context"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// NoOutput is what an OpenAI-compatible model receives for a tool result
// that is empty. The OpenAI client leaves an empty content out of the
// request, and OpenAI refuses a tool message without content ("Missing
// required parameter: messages[i].content"), so a function that returns
// nothing would otherwise fail the turn.
const NoOutput = "(no output)"

// filledModel is an OpenAI chat model whose empty tool results are sent
// as NoOutput.
type filledModel struct {
	inner model.ToolCallingChatModel
}

// Generate calls the inner model with the empty tool results filled.
func (m filledModel) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	return m.inner.Generate(ctx, fillToolResults(in), opts...)
}

// Stream calls the inner model with the empty tool results filled.
func (m filledModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.inner.Stream(ctx, fillToolResults(in), opts...)
}

// WithTools binds tools to the inner model and keeps filling.
func (m filledModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return filledModel{inner: inner}, nil
}

// IsCallbacksEnabled is the inner model's, so calls are reported once.
func (m filledModel) IsCallbacksEnabled() bool { return components.IsCallbacksEnabled(m.inner) }

// GetType is the inner model's type, as callbacks name it.
func (m filledModel) GetType() string {
	if t, ok := components.GetType(m.inner); ok {
		return t
	}
	return "OpenAI"
}

// fillToolResults returns in, or a copy whose empty tool messages carry
// NoOutput; the caller's messages are not modified.
func fillToolResults(in []*schema.Message) []*schema.Message {
	var out []*schema.Message
	for i, m := range in {
		if m.Role != schema.Tool || m.Content != "" || len(m.MultiContent) > 0 || len(m.UserInputMultiContent) > 0 {
			continue
		}
		if out == nil {
			out = append([]*schema.Message(nil), in...)
		}
		filled := *m
		filled.Content = NoOutput
		out[i] = &filled
	}
	if out == nil {
		return in
	}
	return out
}
