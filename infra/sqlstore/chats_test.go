package sqlstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestChatStore(t *testing.T) { forEachBackend(t, testChatStore) }

func testChatStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Chats()
	c := newConversation(t, db, wsA, botX)
	other := newConversation(t, db, wsA, botX)

	t.Run("create and get", func(t *testing.T) {
		done := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		chat := &conversation.Chat{
			WorkspaceID: wsA, ConversationID: c.ID, SectionID: c.SectionID, BotID: botX, BotVersion: 3,
			UserID: "end-user-1", ConnectorID: "1024", Status: conversation.ChatFailed,
			Usage:     conversation.Usage{InputTokens: 5, OutputTokens: 7},
			LastError: &conversation.ChatError{Code: 5000, Msg: "model down"},
			RequiredAction: &conversation.RequiredAction{ToolCalls: []conversation.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
			MetaData: map[string]string{"k": "v"}, State: []byte{0, 1, 2, 255},
			CompletedAt: &done, FailedAt: &done,
		}
		mustNot(t, store.CreateChat(ctx, chat))
		if chat.ID == 0 || chat.CreatedAt.IsZero() {
			t.Fatalf("CreateChat left %+v", chat)
		}
		got, err := store.GetChat(ctx, c.ID, chat.ID)
		mustNot(t, err)
		if diff := cmp.Diff(chat, got); diff != "" {
			t.Errorf("GetChat (-created +got):\n%s", diff)
		}
		_, err = store.GetChat(ctx, other.ID, chat.ID)
		wantErr(t, err, errs.ErrNotFound, "chat")
	})

	t.Run("update", func(t *testing.T) {
		chat := &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, Status: conversation.ChatInProgress}
		mustNot(t, store.CreateChat(ctx, chat))
		now := time.Now().UTC().Truncate(time.Millisecond)
		got, err := store.UpdateChat(ctx, c.ID, chat.ID, func(v *conversation.Chat) error {
			v.Status, v.CompletedAt, v.Usage = conversation.ChatCompleted, &now, conversation.Usage{InputTokens: 1, OutputTokens: 2}
			v.ConversationID = other.ID // ignored
			return nil
		})
		mustNot(t, err)
		stored, _ := store.GetChat(ctx, c.ID, chat.ID)
		if diff := cmp.Diff(got, stored); diff != "" || stored.Status != conversation.ChatCompleted || stored.Usage.Total() != 3 {
			t.Errorf("stored %+v; (-returned +stored):\n%s", stored, diff)
		}
		_, err = store.UpdateChat(ctx, c.ID, chat.ID, func(v *conversation.Chat) error { v.Status = conversation.ChatFailed; return errFromFn })
		if err != errFromFn {
			t.Fatalf("error = %v, want fn's own", err)
		}
		_, err = store.UpdateChat(ctx, other.ID, chat.ID, func(*conversation.Chat) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "not found")
		if again, _ := store.GetChat(ctx, c.ID, chat.ID); again.Status != conversation.ChatCompleted {
			t.Errorf("status %s after failed updates", again.Status)
		}
	})

	t.Run("concurrent submits: exactly one wins", func(t *testing.T) {
		chat := &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, Status: conversation.ChatRequiresAction,
			RequiredAction: &conversation.RequiredAction{ToolCalls: []conversation.ToolCall{{ID: "call_1", Name: "f"}}}}
		mustNot(t, store.CreateChat(ctx, chat))
		const callers = 6
		results := make([]error, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				_, results[i] = store.UpdateChat(ctx, c.ID, chat.ID, func(v *conversation.Chat) error {
					time.Sleep(5 * time.Millisecond) // widen the window a missing lock would leave open
					return v.StartSubmit([]conversation.ToolOutput{{ToolCallID: "call_1", Output: "ok"}})
				})
			})
		}
		wg.Wait()
		won := 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, errs.ErrConflict):
				t.Errorf("a losing submit failed with %v, want a conflict", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d submits succeeded, want exactly 1: %v", won, results)
		}
		stored, _ := store.GetChat(ctx, c.ID, chat.ID)
		if stored.Status != conversation.ChatInProgress || stored.RequiredAction != nil {
			t.Errorf("stored %s with %+v, want in_progress without required action", stored.Status, stored.RequiredAction)
		}
	})
}
