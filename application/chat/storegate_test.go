package chat

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// slowStart is a chat store whose StartChat waits until a tool ran or a
// while passed, as a loaded database may: a tool that ran before the
// question was stored would find the conversation without it.
type slowStart struct {
	*memStore
	toolRan chan struct{}
}

func (s slowStart) StartChat(ctx context.Context, c *conversation.Chat, msgs []*conversation.Message) error {
	select {
	case <-s.toolRan:
	case <-time.After(200 * time.Millisecond):
	}
	return s.memStore.StartChat(ctx, c, msgs)
}

// listingTool reads the conversation's messages, as a workflow's message
// list node does.
type listingTool struct {
	store *memStore
	ran   chan struct{}
	saw   chan []string
}

func (listingTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "recall", Desc: "lists the chat"}, nil
}

func (l listingTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	l.store.mu.Lock()
	var texts []string
	for _, m := range l.store.msgs {
		texts = append(texts, m.Content)
	}
	l.store.mu.Unlock()
	close(l.ran)
	l.saw <- texts
	return "listed", nil
}

type listingSource struct{ tool listingTool }

func (l listingSource) BotTools(context.Context, *bot.Bot, *bot.Config) ([]tool.BaseTool, error) {
	return []tool.BaseTool{l.tool}, nil
}

func TestToolsRunOnceTheQuestionIsStored(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	ran := make(chan struct{})
	h.svc.d.Chats = slowStart{memStore: h.store, toolRan: ran}
	lt := listingTool{store: h.store, ran: ran, saw: make(chan []string, 1)}
	h.svc.d.Tools = []ToolSource{listingSource{lt}}
	h.ask(t, "#call recall {}")
	if saw := <-lt.saw; !slices.Contains(saw, "#call recall {}") {
		t.Fatalf("the tool listed %q; want the question it answers", saw)
	}
}
