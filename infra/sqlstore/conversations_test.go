package sqlstore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Workspaces and bots of the conversation suites: conversations refer to
// them by id only, so none needs to exist.
const (
	wsA, wsB   = int64(101), int64(202)
	botX, botY = int64(7001), int64(7002)
)

// newConversation stores a conversation of bot in workspace ws.
func newConversation(t *testing.T, db *DB, ws, bot int64) *conversation.Conversation {
	t.Helper()
	c := &conversation.Conversation{WorkspaceID: ws, BotID: bot, CreatorID: 1, ConnectorID: "1024"}
	mustNot(t, db.Conversations().CreateConversation(context.Background(), c))
	return c
}

func TestConversationStore(t *testing.T) { forEachBackend(t, testConversationStore) }

func testConversationStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Conversations()

	t.Run("create and get", func(t *testing.T) {
		c := &conversation.Conversation{WorkspaceID: wsA, BotID: botX, CreatorID: 5, ConnectorID: "1024",
			Name: "Trip", MetaData: map[string]string{"k": "v"}}
		mustNot(t, store.CreateConversation(ctx, c))
		if c.ID == 0 || c.SectionID == 0 || c.SectionID == c.ID || c.CreatedAt.IsZero() || !c.UpdatedAt.Equal(c.CreatedAt) {
			t.Fatalf("CreateConversation left %+v", c)
		}
		got, err := store.GetConversation(ctx, c.ID)
		mustNot(t, err)
		if diff := cmp.Diff(c, got); diff != "" {
			t.Errorf("GetConversation (-created +got):\n%s", diff)
		}
	})

	t.Run("not found, also from another workspace", func(t *testing.T) {
		_, err := store.GetConversation(ctx, 999)
		wantErr(t, err, errs.ErrNotFound, "conversation 999 not found")
		c := newConversation(t, db, wsA, botX)
		_, err = store.UpdateConversation(ctx, wsB, c.ID, func(*conversation.Conversation) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "not found")
		_, err = store.NewSection(ctx, wsB, c.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		wantErr(t, store.DeleteConversation(ctx, wsB, c.ID), errs.ErrNotFound, "not found")
		if _, err := store.GetConversation(ctx, c.ID); err != nil {
			t.Fatalf("conversation gone after another workspace's delete: %v", err)
		}
	})

	t.Run("update", func(t *testing.T) {
		c := newConversation(t, db, wsA, botX)
		got, err := store.UpdateConversation(ctx, wsA, c.ID, func(v *conversation.Conversation) error {
			v.Name, v.MetaData = "Renamed", map[string]string{"a": "b"}
			v.ID, v.WorkspaceID = 1, wsB // ignored
			return nil
		})
		mustNot(t, err)
		want := *c
		want.Name, want.MetaData, want.UpdatedAt = "Renamed", map[string]string{"a": "b"}, got.UpdatedAt
		stored, _ := store.GetConversation(ctx, c.ID)
		if diff := cmp.Diff(&want, stored); diff != "" {
			t.Errorf("stored (-want +got):\n%s", diff)
		}
		_, err = store.UpdateConversation(ctx, wsA, c.ID, func(v *conversation.Conversation) error { v.Name = "Lost"; return errFromFn })
		if err != errFromFn {
			t.Fatalf("error = %v, want fn's own", err)
		}
		again, _ := store.GetConversation(ctx, c.ID)
		if again.Name != "Renamed" {
			t.Errorf("name %q after a failed update", again.Name)
		}
	})

	t.Run("new section", func(t *testing.T) {
		c := newConversation(t, db, wsA, botX)
		section, err := store.NewSection(ctx, wsA, c.ID)
		mustNot(t, err)
		got, _ := store.GetConversation(ctx, c.ID)
		if section <= c.SectionID || got.SectionID != section {
			t.Errorf("section %d after %d; stored %d", section, c.SectionID, got.SectionID)
		}
	})

	t.Run("list newest first by bot and connector", func(t *testing.T) {
		const ws = int64(303)
		var ofX []conversation.Conversation
		for range 5 {
			ofX = append([]conversation.Conversation{*newConversation(t, db, ws, botX)}, ofX...)
		}
		newConversation(t, db, ws, botY)
		newConversation(t, db, wsB, botX)
		web := &conversation.Conversation{WorkspaceID: ws, BotID: botX, ConnectorID: "999"}
		mustNot(t, store.CreateConversation(ctx, web))

		tests := []struct {
			name     string
			filter   conversation.Filter
			page     identity.Page
			want     []conversation.Conversation
			wantMore bool
		}{
			{"first page", conversation.Filter{BotID: botX, ConnectorID: "1024"}, identity.Page{Number: 1, Size: 2}, ofX[:2], true},
			{"last page", conversation.Filter{BotID: botX, ConnectorID: "1024"}, identity.Page{Number: 3, Size: 2}, ofX[4:], false},
			{"exactly full", conversation.Filter{BotID: botX, ConnectorID: "1024"}, identity.Page{Number: 1, Size: 5}, ofX, false},
			{"past the end", conversation.Filter{BotID: botX, ConnectorID: "1024"}, identity.Page{Number: 9, Size: 2}, nil, false},
			{"any connector", conversation.Filter{BotID: botX}, identity.Page{Number: 1, Size: 1}, []conversation.Conversation{*web}, true},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, more, err := store.ListConversations(ctx, ws, tc.filter, tc.page)
				mustNot(t, err)
				if diff := cmp.Diff(tc.want, got, cmpEmpty); diff != "" || more != tc.wantMore {
					t.Errorf("more = %v, want %v; page (-want +got):\n%s", more, tc.wantMore, diff)
				}
			})
		}
		all, more, err := store.ListConversations(ctx, ws, conversation.Filter{}, identity.Page{})
		mustNot(t, err)
		if len(all) != 7 || more {
			t.Errorf("unpaged list of the workspace: %d, more %v; want 7, false", len(all), more)
		}
	})

	t.Run("delete removes messages and chats", func(t *testing.T) {
		doomed := newConversation(t, db, wsA, botX)
		kept := newConversation(t, db, wsA, botX)
		for _, c := range []*conversation.Conversation{doomed, kept} {
			mustNot(t, db.Messages().CreateMessages(ctx, question(c, "hi"), answer(c, "hello")))
			mustNot(t, db.Chats().CreateChat(ctx, &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, Status: conversation.ChatCreated}))
		}
		mustNot(t, store.DeleteConversation(ctx, wsA, doomed.ID))
		_, err := store.GetConversation(ctx, doomed.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		wantErr(t, store.DeleteConversation(ctx, wsA, doomed.ID), errs.ErrNotFound, "not found")
		for id, want := range map[int64]int64{doomed.ID: 0, kept.ID: 2} {
			var msgs, chats int64
			mustNot(t, db.Gorm().Model(&messageRow{}).Where("conversation_id = ?", id).Count(&msgs).Error)
			mustNot(t, db.Gorm().Model(&chatRow{}).Where("conversation_id = ?", id).Count(&chats).Error)
			if msgs != want || chats != want/2 {
				t.Errorf("conversation %d: %d messages and %d chats left, want %d and %d", id, msgs, chats, want, want/2)
			}
		}
	})
}
