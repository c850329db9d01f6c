package chat

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// syncBuffer is a log sink the run's goroutine may write while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestModelErrorFailsTheChat: a model that answers 500 fails the chat;
// the end user reads a short message without internal ids, the
// provider's words, URL or eino's wrapping, and the log keeps the detail
// with the log id and the chat id.
func TestModelErrorFailsTheChat(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	var logs syncBuffer
	h.svc.d.Log = slog.New(slog.NewTextHandler(&logs, nil))
	h.llm.Enqueue(fakellm.Fail(500, "the model is on fire"))
	rec := newRecorder()
	ctx := WithLogID(context.Background(), "20260101000000abcdef")
	chat, err := h.svc.Start(ctx, h.who, Request{BotID: 7, ConversationID: 11, UserID: "u1",
		AdditionalMessages: []InputMessage{{Role: "user", Content: "hi", ContentType: "text"}}, AutoSaveHistory: true}, rec)
	if err != nil {
		t.Fatal(err)
	}
	events := rec.wait(t)
	end := events[len(events)-2]
	want := MsgModelUnavailable
	if end.Kind != EventChatFailed || end.Chat.LastError == nil || end.Chat.LastError.Msg != want {
		t.Fatalf("end = %+v, want the last error %q", end.Chat, want)
	}
	stored, _ := h.store.GetChat(context.Background(), 11, chat.ID)
	if stored.Status != conversation.ChatFailed || stored.FailedAt == nil || stored.LastError.Msg != want {
		t.Fatalf("stored chat = %+v", stored)
	}
	line := logs.String()
	for _, detail := range []string{"the model is on fire", "20260101000000abcdef", idString(chat.ID)} {
		if !strings.Contains(line, detail) {
			t.Errorf("the log lacks %q: %s", detail, line)
		}
	}
}

// TestModelUnreachableHidesTheURL: a provider nobody serves fails the
// chat without showing its address; the builder's debug chat shows the
// detail and where to find it in the log.
func TestModelUnreachableHidesTheURL(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	addr := strings.TrimPrefix(h.llm.BaseURL(), "http://")
	_ = h.llm.Close()
	for _, draft := range []bool{false, true} {
		rec := newRecorder()
		_, err := h.svc.Start(context.Background(), h.who, Request{BotID: 7, ConversationID: 11, UserID: "u1", Draft: draft,
			AdditionalMessages: []InputMessage{{Role: "user", Content: "hi", ContentType: "text"}}, AutoSaveHistory: true}, rec)
		if err != nil {
			t.Fatal(err)
		}
		events := rec.wait(t)
		msg := events[len(events)-2].Chat.LastError.Msg
		if draft && !strings.HasPrefix(msg, MsgModelUnavailable+" (chat id: ") || !draft && msg != MsgModelUnavailable {
			t.Fatalf("draft=%v: last error %q", draft, msg)
		}
		leaks := strings.Contains(msg, addr) || strings.Contains(msg, "NodeRunError") || strings.Contains(msg, "node path")
		if leaks != draft {
			t.Errorf("draft=%v: the detail shows: %v, in %q", draft, leaks, msg)
		}
	}
}
