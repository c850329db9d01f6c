package chat

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// storedAtEnd is a sink that, when the final chat event arrives, reads
// what the store holds of the chat at that moment.
type storedAtEnd struct {
	*recorder
	store  *memStore
	status conversation.ChatStatus
	msgs   []conversation.Message
}

func (s *storedAtEnd) Send(e Event) {
	if e.Kind == EventChatCompleted {
		c, _ := s.store.GetChat(context.Background(), e.Chat.ConversationID, e.Chat.ID)
		s.status = c.Status
		s.msgs, _ = s.store.ListChatMessages(context.Background(), e.Chat.ConversationID, e.Chat.ID)
	}
	s.recorder.Send(e)
}

// TestOutcomeIsStoredBeforeItIsSent shows the guarantee a client relies
// on: when it hears that a chat completed, the chat's status, usage and
// messages are already stored, so a process dying right after loses none
// of what the client saw completed.
func TestOutcomeIsStoredBeforeItIsSent(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	sink := &storedAtEnd{recorder: newRecorder(), store: h.store}
	chat, err := h.svc.Start(context.Background(), h.who, Request{BotID: 7, ConversationID: 11, UserID: "u1",
		AdditionalMessages: []InputMessage{{Role: "user", Content: "hello", ContentType: "text"}}, AutoSaveHistory: true}, sink)
	if err != nil {
		t.Fatal(err)
	}
	events := sink.wait(t)
	if events[len(events)-2].Kind != EventChatCompleted {
		t.Fatalf("events = %v", kinds(events))
	}
	if sink.status != conversation.ChatCompleted {
		t.Fatalf("when chat.completed was sent, the stored chat was %q", sink.status)
	}
	var answer string
	for _, m := range sink.msgs {
		if m.Type == conversation.TypeAnswer {
			answer = m.Content
		}
	}
	if answer != "echo: hello" {
		t.Fatalf("when chat.completed was sent, chat %d held %d messages, answer %q", chat.ID, len(sink.msgs), answer)
	}
}
