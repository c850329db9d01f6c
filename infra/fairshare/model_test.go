package fairshare

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/errs"
)

// echoModel answers "ok" and streams "a", "b"; it reports its own
// callbacks, as the provider models do.
type echoModel struct{}

func (echoModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return schema.AssistantMessage("ok", nil), nil
}

func (echoModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray([]*schema.Message{schema.AssistantMessage("a", nil), schema.AssistantMessage("b", nil)}), nil
}

func (m echoModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }
func (echoModel) IsCallbacksEnabled() bool                                           { return true }

func TestModelCallsHoldASlot(t *testing.T) {
	l := New(Config{Name: "model", Slots: 2, Share: 0.5})
	var m model.ToolCallingChatModel = &Model{Inner: echoModel{}, Slots: l, Tenant: func(context.Context) int64 { return 7 }, Wait: time.Millisecond}
	m, _ = m.WithTools(nil)
	if !m.(*Model).IsCallbacksEnabled() {
		t.Fatal("the wrapper hides that the model reports its own callbacks: eino would report each call twice")
	}
	ctx := context.Background()
	if msg, err := m.Generate(ctx, nil); err != nil || msg.Content != "ok" {
		t.Fatalf("Generate = %v, %v", msg, err)
	}
	sr, err := m.Stream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(ctx, nil); !errors.Is(err, errs.ErrRateLimited) {
		t.Fatalf("a second call of the tenant while its stream runs: %v, want a refusal (429)", err)
	}
	var text string
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		text += chunk.Content
	}
	if text != "ab" {
		t.Fatalf("streamed %q", text)
	}
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.used == 0 })
	if _, err := m.Generate(ctx, nil); err != nil {
		t.Fatalf("after the stream ended: %v", err)
	}
}

// A reader that closes a stream early gives its slot back.
func TestClosedStreamGivesItsSlotBack(t *testing.T) {
	l := New(Config{Slots: 1})
	m := &Model{Inner: echoModel{}, Slots: l, Tenant: func(context.Context) int64 { return 1 }, Wait: time.Millisecond}
	sr, err := m.Stream(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sr.Close()
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.used == 0 })
}
