package trace

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
)

type memRecorder struct {
	mu     sync.Mutex
	traces []*Trace
}

func (m *memRecorder) Record(t *Trace) { m.mu.Lock(); m.traces = append(m.traces, t); m.mu.Unlock() }

// clock returns times a millisecond apart.
func clock() func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Millisecond); return t }
}

func TestChatTurnBuildsATree(t *testing.T) {
	rec := &memRecorder{}
	c := NewChats(rec, nil)
	c.now = clock()
	ctx := bot.WithRunScope(context.Background(), bot.RunScope{WorkspaceID: 5, ChatID: 9, ConversationID: 3})
	steps := []chat.Step{
		{Kind: chat.StepTurnStart, ChatID: 9, BotID: 2, ModelID: "m"},
		{Kind: chat.StepModelStart, ChatID: 9, ModelID: "m", Input: []*schema.Message{schema.UserMessage("hi")}},
		{Kind: chat.StepTextDelta, ChatID: 9, Text: "x"},
		{Kind: chat.StepModelEnd, ChatID: 9, ModelID: "m", Usage: conversation.Usage{InputTokens: 7, OutputTokens: 3},
			Output: schema.AssistantMessage("x", nil)},
		{Kind: chat.StepToolCall, ChatID: 9, ToolName: "add", ToolCallID: "c1", ToolOrigin: "42", Arguments: strings.Repeat("é", MaxText)},
		{Kind: chat.StepToolResult, ChatID: 9, ToolName: "add", ToolCallID: "c1", Text: "boom", Err: errors.New("boom")},
		{Kind: chat.StepTurnEnd, ChatID: 9, Text: "completed"},
	}
	for _, s := range steps {
		c.OnStep(ctx, s)
	}
	if len(rec.traces) != 1 {
		t.Fatalf("%d traces recorded", len(rec.traces))
	}
	tr := rec.traces[0]
	root := tr.Root
	if tr.ID != 9 || tr.WorkspaceID != 5 || root.Attributes[AttrConversation] != "3" || len(root.Children) != 2 {
		t.Fatalf("trace = %+v root = %+v", tr, root)
	}
	model, tool := root.Children[0], root.Children[1]
	if model.Attributes[AttrInputTokens] != 7 || model.Attributes[AttrTTFT] != 1.0 || model.DurationMS != 2 ||
		!strings.Contains(model.Attributes[AttrPrompt].(string), `"hi"`) {
		t.Fatalf("model span = %+v", model)
	}
	args := tool.Attributes[AttrToolArgs].(string)
	if len(args) > MaxText || tool.Attributes[AttrTruncated] != true || !strings.HasSuffix(args, "é") {
		t.Fatalf("arguments kept %d bytes (truncated %v), want at most %d on a rune boundary", len(args), tool.Attributes[AttrTruncated], MaxText)
	}
	if tool.Status != StatusError || tool.Error != "boom" || root.Status != StatusOK || tool.Attributes[AttrPluginID] != "42" {
		t.Fatalf("tool %s %q, root %s", tool.Status, tool.Error, root.Status)
	}
	if _, open := c.open[9]; open {
		t.Fatal("the turn is still open after it ended")
	}
}

func TestTraceSpansAreBounded(t *testing.T) {
	rec := &memRecorder{}
	c := NewChats(rec, nil)
	ctx := context.Background()
	c.OnStep(ctx, chat.Step{Kind: chat.StepTurnStart, ChatID: 1})
	for i := 0; i < MaxSpans+10; i++ {
		c.OnStep(ctx, chat.Step{Kind: chat.StepModelStart, ChatID: 1})
		c.OnStep(ctx, chat.Step{Kind: chat.StepModelEnd, ChatID: 1})
	}
	c.OnStep(ctx, chat.Step{Kind: chat.StepTurnEnd, ChatID: 1})
	root := rec.traces[0].Root
	if n := root.count(); n != MaxSpans || root.Attributes[AttrDropped] != 11 {
		t.Fatalf("%d spans, %v dropped; want %d and 11", n, root.Attributes[AttrDropped], MaxSpans)
	}
}

type slowStore struct {
	release chan struct{}
	mu      sync.Mutex
	saved   []Record
}

func (s *slowStore) SaveTraces(_ context.Context, recs []Record) error {
	<-s.release
	s.mu.Lock()
	s.saved = append(s.saved, recs...)
	s.mu.Unlock()
	return nil
}

func (s *slowStore) TraceRecords(context.Context, int64) ([]Record, error) { return nil, nil }

func TestWriterDropsWhenFullAndNeverBlocks(t *testing.T) {
	store := &slowStore{release: make(chan struct{})}
	drops := 0
	w := NewWriter(WriterConfig{Store: store, Queue: 2, Batch: 2, OnDrop: func() { drops++ }})
	start := time.Now()
	for i := 0; i < 10; i++ {
		w.Record(&Trace{ID: int64(i), WorkspaceID: 1, Kind: KindChat, Root: newSpan("r", KindChat, time.Now())})
	}
	if time.Since(start) > 100*time.Millisecond {
		t.Fatal("Record blocked on a slow store")
	}
	close(store.release)
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// one trace taken by the writer, two queued, the rest dropped
	if drops < 5 || len(store.saved)+drops != 10 {
		t.Fatalf("saved %d, dropped %d of 10", len(store.saved), drops)
	}
	var root Span
	if err := json.Unmarshal(store.saved[0].Tree, &root); err != nil || root.Name != "r" {
		t.Fatalf("stored tree %s: %v", store.saved[0].Tree, err)
	}
}

func TestLargeTreesLoseContentFirst(t *testing.T) {
	root := newSpan("r", KindChat, time.Now())
	for i := 0; i < 200; i++ {
		sp := newSpan("t", KindTool, time.Now())
		sp.setText(AttrToolResult, strings.Repeat("x", MaxText))
		sp.Attributes[AttrToolName] = "add"
		root.Children = append(root.Children, sp)
	}
	b := encodeTree(root)
	var got Span
	if err := json.Unmarshal(b, &got); err != nil || len(b) > MaxTreeBytes {
		t.Fatalf("%d bytes: %v", len(b), err)
	}
	if len(got.Children) != 200 || got.Children[0].Attributes[AttrToolResult] != nil || got.Children[0].Attributes[AttrToolName] != "add" {
		t.Fatalf("first child = %+v", got.Children[0])
	}
}
