package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestChatEndTurn(t *testing.T) { forEachBackend(t, testChatEndTurn) }

// testChatEndTurn checks EndTurn, the single write a turn ends with: the
// outcome and the messages together, the chat's other columns untouched,
// and the chat as stored deciding when it moved on meanwhile.
func testChatEndTurn(t *testing.T, db *DB) {
	ctx := context.Background()
	chats, msgs := db.Chats().WithInstance("proc-a"), db.Messages()
	c := newConversation(t, db, wsA, botX)
	start := func(t *testing.T) *conversation.Chat {
		t.Helper()
		chat := &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, SectionID: c.SectionID, BotID: botX, BotVersion: 2,
			UserID: "u1", ConnectorID: "1024", Status: conversation.ChatInProgress, MetaData: map[string]string{"k": "v"}}
		mustNot(t, chats.StartChat(ctx, chat, []*conversation.Message{question(c, "q")}))
		return chat
	}
	answerOf := func(chat *conversation.Chat, text string) *conversation.Message {
		a := answer(c, text)
		a.ChatID = chat.ID
		return a
	}
	noFallback := func(t *testing.T) func(*conversation.Chat) error {
		return func(*conversation.Chat) error { t.Error("fallback called for a chat in progress"); return nil }
	}

	t.Run("completes in one write", func(t *testing.T) {
		chat := start(t)
		out := *chat
		now := time.Now().UTC().Truncate(time.Millisecond)
		out.Status, out.CompletedAt, out.Usage = conversation.ChatCompleted, &now, conversation.Usage{InputTokens: 7, OutputTokens: 3}
		got, err := chats.EndTurn(ctx, &out, []*conversation.Message{answerOf(chat, "a1"), answerOf(chat, "a2")}, noFallback(t))
		mustNot(t, err)
		stored, err := chats.GetChat(ctx, c.ID, chat.ID)
		mustNot(t, err)
		if diff := cmp.Diff(stored, got, cmpEmpty); diff != "" {
			t.Errorf("returned vs stored (-stored +returned):\n%s", diff)
		}
		if stored.Status != conversation.ChatCompleted || stored.Usage.Total() != 10 || stored.CompletedAt == nil ||
			stored.UserID != "u1" || stored.BotVersion != 2 || stored.MetaData["k"] != "v" {
			t.Errorf("stored chat = %+v", stored)
		}
		if list, _ := msgs.ListChatMessages(ctx, c.ID, chat.ID); len(list) != 2 || list[0].Content != "a1" || list[1].Content != "a2" {
			t.Errorf("chat messages = %v", contents(list))
		}
		var instance string
		mustNot(t, db.Gorm().Model(&chatRow{}).Where("id = ?", chat.ID).Pluck("instance", &instance).Error)
		if instance != "proc-a" {
			t.Errorf("instance = %q, want the one that ran it", instance)
		}
	})

	t.Run("waits for tool outputs with its state", func(t *testing.T) {
		chat := start(t)
		out := *chat
		out.Status, out.State = conversation.ChatRequiresAction, []byte(`{"transcript":[]}`)
		out.RequiredAction = &conversation.RequiredAction{ToolCalls: []conversation.ToolCall{{ID: "c1", Name: "f", Arguments: "{}"}}}
		_, err := chats.EndTurn(ctx, &out, nil, noFallback(t))
		mustNot(t, err)
		stored, _ := chats.GetChat(ctx, c.ID, chat.ID)
		if stored.Status != conversation.ChatRequiresAction || string(stored.State) != `{"transcript":[]}` ||
			stored.RequiredAction == nil || stored.RequiredAction.ToolCalls[0].ID != "c1" {
			t.Errorf("stored chat = %+v", stored)
		}
	})

	t.Run("canceled meanwhile: the stored chat decides", func(t *testing.T) {
		chat := start(t)
		_, err := chats.UpdateChat(ctx, c.ID, chat.ID, func(ch *conversation.Chat) error { ch.Status = conversation.ChatCanceled; return nil })
		mustNot(t, err)
		out := *chat
		out.Status, out.Usage = conversation.ChatCompleted, conversation.Usage{InputTokens: 4, OutputTokens: 1}
		var saw conversation.ChatStatus
		got, err := chats.EndTurn(ctx, &out, []*conversation.Message{answerOf(chat, "late")}, func(ch *conversation.Chat) error {
			saw = ch.Status
			ch.Usage = ch.Usage.Add(out.Usage)
			return nil
		})
		mustNot(t, err)
		if saw != conversation.ChatCanceled || got.Status != conversation.ChatCanceled || got.Usage.Total() != 5 {
			t.Errorf("fallback saw %q; returned %+v", saw, got)
		}
		if list, _ := msgs.ListChatMessages(ctx, c.ID, chat.ID); len(list) != 1 || list[0].Content != "late" {
			t.Errorf("chat messages = %v; the answer must be kept once", contents(list))
		}
	})

	t.Run("stored messages: nothing written", func(t *testing.T) {
		chat := start(t)
		a := answerOf(chat, "once")
		mustNot(t, msgs.CreateMessages(ctx, a))
		out := *chat
		out.Status = conversation.ChatCompleted
		dup := answerOf(chat, "twice")
		dup.ID = a.ID
		if _, err := chats.EndTurn(ctx, &out, []*conversation.Message{dup}, noFallback(t)); !errors.Is(err, errs.ErrConflict) {
			t.Fatalf("end with a stored message: %v", err)
		}
		if stored, _ := chats.GetChat(ctx, c.ID, chat.ID); stored.Status != conversation.ChatInProgress {
			t.Errorf("status = %s after a failed end", stored.Status)
		}
	})

	t.Run("unknown chat and bad outcome", func(t *testing.T) {
		out := conversation.Chat{ID: 424242, ConversationID: c.ID, Status: conversation.ChatCompleted}
		if _, err := chats.EndTurn(ctx, &out, nil, func(*conversation.Chat) error { return nil }); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("end of an unknown chat: %v", err)
		}
		chat := start(t)
		if _, err := chats.EndTurn(ctx, chat, nil, noFallback(t)); err == nil {
			t.Error("an outcome still in progress was accepted")
		}
	})
}
