package sqlstore

import (
	"context"
	"errors"
	"testing"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestChatTurnWrites(t *testing.T) { forEachBackend(t, testChatTurnWrites) }

// testChatTurnWrites checks StartChat and FinishChat, the single
// transactions a chat turn begins and ends with: all written, or nothing.
func testChatTurnWrites(t *testing.T, db *DB) {
	ctx := context.Background()
	chats, msgs := db.Chats(), db.Messages()
	c := newConversation(t, db, wsA, botX)
	chat := &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, SectionID: c.SectionID, BotID: botX, Status: conversation.ChatInProgress}
	q := question(c, "hello")
	mustNot(t, chats.StartChat(ctx, chat, []*conversation.Message{q}))
	if chat.ID == 0 || q.ID == 0 {
		t.Fatalf("ids not assigned: chat %d, message %d", chat.ID, q.ID)
	}

	// A second start reusing the question's id stores neither the chat nor the message.
	dupChat := &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, SectionID: c.SectionID, BotID: botX, Status: conversation.ChatInProgress}
	dup := question(c, "again")
	dup.ID = q.ID
	if err := chats.StartChat(ctx, dupChat, []*conversation.Message{dup}); !errors.Is(err, errs.ErrConflict) {
		t.Fatalf("duplicate start: %v", err)
	}
	if dupChat.ID != 0 {
		if _, err := chats.GetChat(ctx, c.ID, dupChat.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("the chat of a failed start was stored: %v", err)
		}
	}

	// A failing change writes neither the outcome nor the messages.
	a := answer(c, "hi")
	a.ChatID = chat.ID
	boom := errors.New("boom")
	if _, err := chats.FinishChat(ctx, c.ID, chat.ID, []*conversation.Message{a}, func(*conversation.Chat) error { return boom }); err != boom {
		t.Fatalf("finish with a failing fn: %v", err)
	}
	if got, _ := msgs.ListChatMessages(ctx, c.ID, chat.ID); len(got) != 0 {
		t.Fatalf("messages of a failed finish were stored: %v", contents(got))
	}

	done, err := chats.FinishChat(ctx, c.ID, chat.ID, []*conversation.Message{a}, func(ch *conversation.Chat) error {
		ch.Status = conversation.ChatCompleted
		ch.Usage = conversation.Usage{InputTokens: 3, OutputTokens: 2}
		return nil
	})
	mustNot(t, err)
	if done.Status != conversation.ChatCompleted || done.Usage.Total() != 5 {
		t.Fatalf("finished chat = %+v", done)
	}
	got, err := msgs.ListChatMessages(ctx, c.ID, chat.ID)
	mustNot(t, err)
	if len(got) != 1 || got[0].Content != "hi" || a.ID == 0 {
		t.Fatalf("chat messages = %v", contents(got))
	}
	later := &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, SectionID: c.SectionID, BotID: botX, Status: conversation.ChatInProgress}
	mustNot(t, chats.StartChat(ctx, later, nil))
	if latest, err := chats.LatestChat(ctx, c.ID); err != nil || latest.ID != later.ID {
		t.Fatalf("latest chat = %+v, %v; want %d", latest, err, later.ID)
	}
	if _, err := chats.LatestChat(ctx, 987654); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("latest chat of a conversation without chats: %v", err)
	}
	if _, err := chats.FinishChat(ctx, c.ID, 424242, nil, func(*conversation.Chat) error { return nil }); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("finish of an unknown chat: %v", err)
	}
}
