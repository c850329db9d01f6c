package fairshare

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Tenant says whose work a call is: the workspace a run's context
// belongs to (0 when it names none; such calls share one line).
type Tenant func(ctx context.Context) int64

// Model is a chat model whose calls each hold a slot of a limiter while
// they run: a generation until it returns, a stream until it ends or its
// reader closes it. A call that gets no slot within Wait fails with the
// limiter's *BusyError.
type Model struct {
	Inner  model.ToolCallingChatModel
	Slots  *Limiter
	Tenant Tenant
	Wait   time.Duration
}

// Generate calls the inner model within a slot.
func (m *Model) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	leave, err := m.Slots.Enter(ctx, m.Tenant(ctx), m.Wait)
	if err != nil {
		return nil, modelBusy(err)
	}
	defer leave()
	return m.Inner.Generate(ctx, in, opts...)
}

// Stream calls the inner model within a slot, held until the stream ends.
func (m *Model) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	leave, err := m.Slots.Enter(ctx, m.Tenant(ctx), m.Wait)
	if err != nil {
		return nil, modelBusy(err)
	}
	sr, err := m.Inner.Stream(ctx, in, opts...)
	if err != nil {
		leave()
		return nil, err
	}
	out, w := schema.Pipe[*schema.Message](1)
	go func() {
		defer leave()
		defer sr.Close()
		defer w.Close()
		for {
			chunk, err := sr.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if w.Send(chunk, err) || err != nil {
				return // the reader closed the stream, or it failed
			}
		}
	}()
	return out, nil
}

// WithTools binds tools to the inner model; the result holds slots too.
func (m *Model) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.Inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return &Model{Inner: inner, Slots: m.Slots, Tenant: m.Tenant, Wait: m.Wait}, nil
}

// IsCallbacksEnabled is the inner model's: a model that reports its own
// calls to eino's callbacks keeps doing so, and is not reported twice.
func (m *Model) IsCallbacksEnabled() bool { return components.IsCallbacksEnabled(m.Inner) }

// GetType is the inner model's type name.
func (m *Model) GetType() string {
	t, _ := components.GetType(m.Inner)
	return t
}

// ModelBusyError is a model call refused for want of a slot.
type ModelBusyError struct{ *BusyError }

func (e ModelBusyError) Error() string {
	return "the model call did not start: " + e.BusyError.Error() + "; try again shortly"
}

// Unwrap returns the limiter's refusal.
func (e ModelBusyError) Unwrap() error { return e.BusyError }

func modelBusy(err error) error {
	var b *BusyError
	if errors.As(err, &b) {
		return ModelBusyError{b}
	}
	return err
}
