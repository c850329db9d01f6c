package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// question and answer build unsaved messages of c's current section.
func question(c *conversation.Conversation, text string) *conversation.Message {
	return &conversation.Message{WorkspaceID: c.WorkspaceID, ConversationID: c.ID, SectionID: c.SectionID, BotID: c.BotID,
		Role: conversation.RoleUser, Type: conversation.TypeQuestion, Content: text, ContentType: conversation.ContentText}
}

func answer(c *conversation.Conversation, text string) *conversation.Message {
	m := question(c, text)
	m.Role, m.Type = conversation.RoleAssistant, conversation.TypeAnswer
	return m
}

func contents(msgs []conversation.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

func TestMessageStore(t *testing.T) { forEachBackend(t, testMessageStore) }

func testMessageStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Messages()
	c := newConversation(t, db, wsA, botX)
	other := newConversation(t, db, wsA, botX)

	t.Run("create assigns ascending ids in order", func(t *testing.T) {
		q := question(c, "q")
		q.MetaData = map[string]string{"k": "v"}
		a := answer(c, "a")
		a.ChatID, a.ReasoningContent, a.Hidden = 77, "thinking", true
		a.Feedback = &conversation.Feedback{Type: "unlike", ReasonTypes: []string{"wrong"}, Comment: "no",
			CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6_789_000, time.UTC)}
		mustNot(t, store.CreateMessages(ctx, q, a))
		if q.ID == 0 || a.ID <= q.ID || q.CreatedAt.IsZero() {
			t.Fatalf("ids %d, %d; created %v", q.ID, a.ID, q.CreatedAt)
		}
		for _, m := range []*conversation.Message{q, a} {
			got, err := store.GetMessage(ctx, c.ID, m.ID)
			mustNot(t, err)
			want := *m
			if want.Feedback != nil {
				f := *want.Feedback
				f.CreatedAt = f.CreatedAt.Truncate(time.Millisecond)
				want.Feedback = &f
			}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("GetMessage (-created +got):\n%s", diff)
			}
		}
		_, err := store.GetMessage(ctx, other.ID, q.ID)
		wantErr(t, err, errs.ErrNotFound, "message")
	})

	t.Run("create is all or nothing", func(t *testing.T) {
		first := question(c, "first")
		mustNot(t, store.CreateMessages(ctx, first))
		fresh := question(c, "fresh")
		fresh.ID = first.ID + 1_000_000
		dup := question(c, "dup")
		dup.ID = first.ID
		wantErr(t, store.CreateMessages(ctx, fresh, dup), errs.ErrConflict, "already exists")
		_, err := store.GetMessage(ctx, c.ID, fresh.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})

	t.Run("update", func(t *testing.T) {
		m := answer(c, "old")
		mustNot(t, store.CreateMessages(ctx, m))
		got, err := store.UpdateMessage(ctx, c.ID, m.ID, func(v *conversation.Message) error {
			v.Content, v.MetaData = "new", map[string]string{"x": "y"}
			v.Feedback = &conversation.Feedback{Type: "like"}
			v.ConversationID = other.ID // ignored
			return nil
		})
		mustNot(t, err)
		if got.Content != "new" || got.Feedback == nil || got.Feedback.Type != "like" || got.ConversationID != c.ID || got.MetaData["x"] != "y" {
			t.Fatalf("updated = %+v", got)
		}
		got, err = store.UpdateMessage(ctx, c.ID, m.ID, func(v *conversation.Message) error { v.Feedback = nil; return nil })
		mustNot(t, err)
		if got.Feedback != nil {
			t.Errorf("feedback not cleared: %+v", got.Feedback)
		}
		_, err = store.UpdateMessage(ctx, c.ID, m.ID, func(v *conversation.Message) error { v.Content = "lost"; return errFromFn })
		if err != errFromFn {
			t.Fatalf("error = %v, want fn's own", err)
		}
		_, err = store.UpdateMessage(ctx, other.ID, m.ID, func(*conversation.Message) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "not found")
		stored, _ := store.GetMessage(ctx, c.ID, m.ID)
		if stored.Content != "new" {
			t.Errorf("content %q after failed updates", stored.Content)
		}
	})

	t.Run("delete returns the message", func(t *testing.T) {
		m := question(c, "bye")
		mustNot(t, store.CreateMessages(ctx, m))
		_, err := store.DeleteMessage(ctx, other.ID, m.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		got, err := store.DeleteMessage(ctx, c.ID, m.ID)
		mustNot(t, err)
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("deleted (-created +got):\n%s", diff)
		}
		_, err = store.DeleteMessage(ctx, c.ID, m.ID)
		wantErr(t, err, errs.ErrNotFound, "message")
	})

	t.Run("hidden messages are listed with their chat only", func(t *testing.T) {
		conv := newConversation(t, db, wsA, botX)
		q, a, hidden := question(conv, "q"), answer(conv, "a"), answer(conv, "hidden")
		q.ChatID, a.ChatID, hidden.ChatID = 5, 5, 5
		hidden.Hidden = true
		mustNot(t, store.CreateMessages(ctx, q, a, hidden, question(conv, "other chat")))
		chat, err := store.ListChatMessages(ctx, conv.ID, 5)
		mustNot(t, err)
		if diff := cmp.Diff([]string{"q", "a", "hidden"}, contents(chat)); diff != "" {
			t.Errorf("ListChatMessages (-want +got):\n%s", diff)
		}
		listed, _, err := store.ListMessages(ctx, conv.ID, conversation.MessageQuery{Order: conversation.OrderAsc})
		mustNot(t, err)
		if diff := cmp.Diff([]string{"q", "a", "other chat"}, contents(listed)); diff != "" {
			t.Errorf("ListMessages (-want +got):\n%s", diff)
		}
		ofChat, _, err := store.ListMessages(ctx, conv.ID, conversation.MessageQuery{ChatID: 5})
		mustNot(t, err)
		if diff := cmp.Diff([]string{"a", "q"}, contents(ofChat)); diff != "" {
			t.Errorf("ListMessages of chat 5, newest first (-want +got):\n%s", diff)
		}
	})
}

func TestMessageHistory(t *testing.T) { forEachBackend(t, testMessageHistory) }

func testMessageHistory(t *testing.T, db *DB) {
	ctx := context.Background()
	store, convs := db.Messages(), db.Conversations()
	c := newConversation(t, db, wsA, botX)
	old := c.SectionID
	mustNot(t, store.CreateMessages(ctx, question(c, "before clear"), answer(c, "old answer")))
	section, err := convs.NewSection(ctx, wsA, c.ID)
	mustNot(t, err)
	c.SectionID = section

	call := &conversation.Message{WorkspaceID: wsA, ConversationID: c.ID, SectionID: section,
		Role: conversation.RoleAssistant, Type: conversation.TypeFunctionCall, Content: "{}"}
	hidden := question(c, "hidden")
	hidden.Hidden = true
	mustNot(t, store.CreateMessages(ctx, answer(c, "prologue"),
		question(c, "q1"), answer(c, "a1"),
		question(c, "q2"), call, answer(c, "a2"), hidden,
		question(c, "q3"), answer(c, "a3a"), answer(c, "a3b"),
		question(c, "q4")))

	tests := []struct {
		section int64
		rounds  int
		want    []string
	}{
		{section, 0, nil},
		{section, 1, []string{"q4"}},
		{section, 2, []string{"q3", "a3a", "a3b", "q4"}},
		{section, 3, []string{"q2", "a2", "q3", "a3a", "a3b", "q4"}},
		{section, 4, []string{"prologue", "q1", "a1", "q2", "a2", "q3", "a3a", "a3b", "q4"}},
		{section, 10, []string{"prologue", "q1", "a1", "q2", "a2", "q3", "a3a", "a3b", "q4"}},
		{old, 5, []string{"before clear", "old answer"}},
		{12345, 5, nil},
	}
	for _, tc := range tests {
		got, err := store.History(ctx, c.ID, tc.section, tc.rounds)
		mustNot(t, err)
		if diff := cmp.Diff(tc.want, contents(got), cmpEmpty); diff != "" {
			t.Errorf("History(section %d, %d rounds) (-want +got):\n%s", tc.section, tc.rounds, diff)
		}
	}
}
