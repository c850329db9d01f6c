package chatflow

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol/sse"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/conversations"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
	wf "github.com/pergola-ai/pergola/workflow"
)

// queue is the event sink of the run: Emit never blocks the run.
type queue struct {
	mu     sync.Mutex
	events []wf.Event
	done   bool
	out    *workflowapp.Outcome
	err    error
	signal chan struct{}
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

// Emit adds an event of the run.
func (q *queue) Emit(e wf.Event) {
	q.mu.Lock()
	q.events = append(q.events, e)
	q.mu.Unlock()
	q.wake()
}

func (q *queue) finish(out *workflowapp.Outcome, err error) {
	q.mu.Lock()
	q.done, q.out, q.err = true, out, err
	q.mu.Unlock()
	q.wake()
}

func (q *queue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *queue) take() ([]wf.Event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	events := q.events
	q.events = nil
	return events, q.done
}

// turn writes one chatflow turn as Coze chat events. The chat's id is the
// run's execute id, known from the run's first event.
type turn struct {
	h       Handlers
	caller  identity.Principal
	conv    *conversation.Conversation
	q       *queue
	w       *sse.Writer
	chat    chatDTO
	started bool
	runID   int64
	open    map[string]*conversation.Message // node → the message it streams
	usage   wf.Usage
	failed  bool
}

// write sends the turn's events until the run ends or the client leaves;
// the run and the history it keeps go on without the client.
func (t *turn) write(ctx context.Context, c *app.RequestContext) {
	t.w = sse.NewWriter(c)
	defer t.w.Close()
	t.open = map[string]*conversation.Message{}
	t.chat = chatDTO{ConversationID: httpx.OptionalID(t.conv.ID), BotID: httpx.OptionalID(t.conv.BotID),
		SectionID: httpx.OptionalID(t.conv.SectionID), CreatedAt: time.Now().Unix(), MetaData: map[string]string{}}
	for {
		events, done := t.q.take()
		for _, e := range events {
			t.start(e.RunID)
			t.event(ctx, e)
		}
		if done {
			t.end(ctx)
			return
		}
		select {
		case <-t.q.signal:
		case <-ctx.Done():
			t.failed = true // keep storing what the run says, without a client
		}
	}
}

// start sends chat.created and chat.in_progress once the run's id is known.
func (t *turn) start(runID int64) {
	if t.started {
		return
	}
	t.started, t.runID = true, runID
	t.chat.ID = httpx.OptionalID(runID)
	t.chat.Status = "created"
	t.send("conversation.chat.created", t.chat)
	t.chat.Status = "in_progress"
	t.send("conversation.chat.in_progress", t.chat)
}

// event streams the pieces of message and end nodes as answer messages,
// one per node, each kept in the conversation once complete.
func (t *turn) event(ctx context.Context, e wf.Event) {
	if e.Kind == wf.EventNodeFinished && e.Record != nil {
		t.usage.InputTokens += e.Record.Usage.InputTokens
		t.usage.OutputTokens += e.Record.Usage.OutputTokens
	}
	if e.Kind != wf.EventMessage {
		return
	}
	m := t.open[e.NodeID]
	if e.Text != "" {
		if m == nil {
			m = t.store(ctx, e.Text)
			t.open[e.NodeID] = m
		} else {
			m.Content += e.Text
		}
		d := *m
		d.Content = e.Text
		t.send("conversation.message.delta", conversations.NewMessage(&d))
	}
	if e.Final && m != nil {
		delete(t.open, e.NodeID)
		t.complete(ctx, m)
	}
}

// store keeps a new answer message in the conversation with its first
// piece, so that its id is the one clients see while it streams.
func (t *turn) store(ctx context.Context, first string) *conversation.Message {
	ctx = context.WithoutCancel(ctx)
	m, err := t.h.Convs.CreateMessage(ctx, t.caller, t.conv.ID, convapp.MessageInput{Role: conversation.RoleAssistant,
		Type: conversation.TypeAnswer, Content: first})
	if err != nil {
		m = convapp.NewMessage(t.conv, convapp.MessageInput{Role: conversation.RoleAssistant, Content: first})
		m.ContentType = conversation.ContentText
	}
	m.ChatID = t.runID
	return m
}

// complete stores a message's full text and sends it.
func (t *turn) complete(ctx context.Context, m *conversation.Message) {
	if m.ID != 0 {
		content := m.Content
		_, _ = t.h.Convs.UpdateMessage(context.WithoutCancel(ctx), t.caller, t.conv.ID, m.ID, convapp.MessagePatch{Content: &content})
	}
	t.send("conversation.message.completed", conversations.NewMessage(m))
}

// end sends chat.completed, or chat.failed with the reason, then done.
func (t *turn) end(ctx context.Context) {
	t.q.mu.Lock()
	out, err := t.q.out, t.q.err
	t.q.mu.Unlock()
	if out != nil && out.Run != nil {
		t.start(out.Run.ID)
	} else {
		t.start(0)
	}
	for id, m := range t.open {
		delete(t.open, id)
		t.complete(ctx, m)
	}
	now := time.Now().Unix()
	t.chat.Usage = &usageDTO{InputCount: t.usage.InputTokens, OutputCount: t.usage.OutputTokens, TokenCount: t.usage.Total()}
	switch {
	case err != nil:
		_, code, msg := httpx.Classify(err)
		t.chat.Status, t.chat.FailedAt, t.chat.LastError = "failed", now, &errorDTO{Code: code, Msg: msg}
		t.send("conversation.chat.failed", t.chat)
	case out.Failure != nil:
		t.chat.Status, t.chat.FailedAt = "failed", now
		t.chat.LastError = &errorDTO{Code: httpx.CodeInvalid, Msg: out.Failure.Error()}
		t.send("conversation.chat.failed", t.chat)
	default:
		t.chat.Status, t.chat.CompletedAt = "completed", now
		t.send("conversation.chat.completed", t.chat)
	}
	t.send("done", map[string]string{"debug_url": ""})
}

// send writes one event: its name and one compact JSON line. A client
// that left gets nothing more.
func (t *turn) send(name string, v any) {
	if t.failed {
		return
	}
	b, _ := json.Marshal(v)
	if err := t.w.WriteEvent("", name, b); err != nil {
		t.failed = true
	}
}

// chatDTO is Coze's Chat object.
type chatDTO struct {
	ID             string            `json:"id"`
	ConversationID string            `json:"conversation_id"`
	BotID          string            `json:"bot_id"`
	SectionID      string            `json:"section_id,omitempty"`
	CreatedAt      int64             `json:"created_at"`
	CompletedAt    int64             `json:"completed_at,omitempty"`
	FailedAt       int64             `json:"failed_at,omitempty"`
	MetaData       map[string]string `json:"meta_data"`
	Status         string            `json:"status"`
	LastError      *errorDTO         `json:"last_error,omitempty"`
	Usage          *usageDTO         `json:"usage,omitempty"`
}

type errorDTO struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
}

type usageDTO struct {
	TokenCount  int64 `json:"token_count"`
	OutputCount int64 `json:"output_count"`
	InputCount  int64 `json:"input_count"`
}

func itoa(i int) string { return strconv.Itoa(i) }
