package chatflow

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol/sse"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/backend/api/conversations"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/workflows"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
	wf "github.com/pergola-ai/pergola/workflow"
)

// turn writes one chatflow turn as Coze chat events. The chat's id is the
// run's execute id, known from the run's first event.
type turn struct {
	h       Handlers
	caller  identity.Principal
	conv    *conversation.Conversation
	q       *workflows.EventQueue
	w       *sse.Writer
	chat    conversation.Chat
	started bool
	runID   int64
	open    map[string]*conversation.Message // node → the message it streams
	usage   wf.Usage
	failed  bool
	logID   string
}

// write sends the turn's events until the run ends or the client leaves;
// the run and the history it keeps go on without the client.
func (t *turn) write(ctx context.Context, c *app.RequestContext) {
	t.w = sse.NewWriter(c)
	defer t.w.Close()
	t.logID = httpx.LogID(c)
	t.open = map[string]*conversation.Message{}
	t.chat = conversation.Chat{ConversationID: t.conv.ID, BotID: t.conv.BotID, SectionID: t.conv.SectionID, CreatedAt: time.Now()}
	for {
		events, done := t.q.Take()
		for _, e := range events {
			t.start(e.RunID)
			t.event(ctx, e)
		}
		if done {
			t.end(ctx)
			return
		}
		select {
		case <-t.q.Ready():
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
	t.chat.ID = runID
	t.chat.Status = conversation.ChatCreated
	t.send("conversation.chat.created", t.chatEvent())
	t.chat.Status = conversation.ChatInProgress
	t.send("conversation.chat.in_progress", t.chatEvent())
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
			m = t.store(ctx, e.Text, conversation.ContentText)
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
func (t *turn) store(ctx context.Context, first, contentType string) *conversation.Message {
	ctx = context.WithoutCancel(ctx)
	in := convapp.MessageInput{Role: conversation.RoleAssistant, Type: conversation.TypeAnswer, Content: first, ContentType: contentType}
	m, err := t.h.Convs.CreateMessage(ctx, t.caller, t.conv.ID, in)
	if err != nil {
		m = convapp.NewMessage(t.conv, in)
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

// end sends chat.completed, chat.failed with the reason, or, when the run
// waits for an answer, its question and chat.requires_action; then done.
func (t *turn) end(ctx context.Context) {
	out, err := t.q.Outcome()
	if out != nil && out.Run != nil {
		t.start(out.Run.ID)
	} else {
		t.start(0)
	}
	for id, m := range t.open {
		delete(t.open, id)
		t.complete(ctx, m)
	}
	now := time.Now()
	t.chat.Usage = conversation.Usage{InputTokens: int(t.usage.InputTokens), OutputTokens: int(t.usage.OutputTokens)}
	switch {
	case err != nil:
		t.chat.Status, t.chat.FailedAt, t.chat.LastError = conversation.ChatFailed, &now, t.runError(ctx, err)
		t.send("conversation.chat.failed", t.chatEvent())
	case out.Failure != nil:
		t.chat.Status, t.chat.FailedAt, t.chat.LastError = conversation.ChatFailed, &now, t.nodeFailure(ctx, out.Failure)
		t.send("conversation.chat.failed", t.chatEvent())
	case out.Interrupt != nil:
		t.ask(ctx, out.Interrupt)
		t.chat.Status = conversation.ChatRequiresAction
		t.send("conversation.chat.requires_action", t.chatEvent())
	default:
		t.chat.Status, t.chat.CompletedAt = conversation.ChatCompleted, &now
		t.send("conversation.chat.completed", t.chatEvent())
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

func itoa(i int) string { return strconv.Itoa(i) }
