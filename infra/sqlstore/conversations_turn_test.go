package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestConversationTurn(t *testing.T) { forEachBackend(t, testConversationTurn) }

// testConversationTurn checks that the one read a chat turn starts with
// gives what GetConversation and History give separately.
func testConversationTurn(t *testing.T, db *DB) {
	ctx := context.Background()
	store, msgs := db.Conversations(), db.Messages()

	empty := newConversation(t, db, wsA, botX)
	empty.MetaData = nil
	c := newConversation(t, db, wsA, botX)
	mustNot(t, msgs.CreateMessages(ctx, question(c, "before clear"), answer(c, "old answer")))
	section, err := store.NewSection(ctx, wsA, c.ID)
	mustNot(t, err)
	c.SectionID = section
	call := &conversation.Message{WorkspaceID: wsA, ConversationID: c.ID, SectionID: section,
		Role: conversation.RoleAssistant, Type: conversation.TypeFunctionCall, Content: "{}"}
	hidden := question(c, "hidden")
	hidden.Hidden = true
	mustNot(t, msgs.CreateMessages(ctx, answer(c, "prologue"), question(c, "q1"), answer(c, "a1"),
		question(c, "q2"), call, answer(c, "a2"), hidden, question(c, "q3"), answer(c, "a3a"), answer(c, "a3b"), question(c, "q4")))
	// A round with more answers than the single read expects: the turn
	// must read on to find where its rounds start.
	chatty := newConversation(t, db, wsA, botX)
	batch := []*conversation.Message{question(chatty, "first")}
	for i := range 2 {
		batch = append(batch, question(chatty, fmt.Sprint("q", i)))
		for j := range 8 {
			batch = append(batch, answer(chatty, fmt.Sprint("a", i, j)))
		}
	}
	mustNot(t, msgs.CreateMessages(ctx, batch...))

	for _, conv := range []*conversation.Conversation{empty, c, chatty} {
		for _, rounds := range []int{0, 1, 2, 3, 4, 10} {
			gotConv, got, err := store.ConversationTurn(ctx, conv.ID, rounds)
			mustNot(t, err)
			full, err := msgs.History(ctx, conv.ID, conv.SectionID, rounds)
			mustNot(t, err)
			want := turnFields(full)
			stored, err := store.GetConversation(ctx, conv.ID)
			mustNot(t, err)
			if diff := cmp.Diff(stored, gotConv); diff != "" {
				t.Errorf("conversation %d (-want +got):\n%s", conv.ID, diff)
			}
			if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
				t.Errorf("conversation %d, %d rounds: history (-History +ConversationTurn):\n%s", conv.ID, rounds, diff)
			}
		}
	}
	if _, got, _ := store.ConversationTurn(ctx, c.ID, 2); !slices.Equal(contents(got), []string{"q3", "a3a", "a3b", "q4"}) {
		t.Errorf("two rounds = %v", contents(got))
	}
	_, _, err = store.ConversationTurn(ctx, 987654321, 3)
	wantErr(t, err, errs.ErrNotFound, "conversation 987654321 not found")
}

// turnFields keeps of each message what ConversationTurn reads.
func turnFields(msgs []conversation.Message) []conversation.Message {
	out := make([]conversation.Message, len(msgs))
	for i, m := range msgs {
		out[i] = conversation.Message{ID: m.ID, Role: m.Role, Type: m.Type, Content: m.Content, ContentType: m.ContentType}
	}
	return out
}

// TestConversationTurnColumns keeps the turn's column lists in step with
// the rows: a column added to conversations must be read too, and the
// message columns read must exist.
func TestConversationTurnColumns(t *testing.T) {
	db := openDB(t, backends()[0].cfg(t))
	conv := &gorm.Statement{DB: db.gorm}
	mustNot(t, conv.Parse(&conversationRow{}))
	if diff := cmp.Diff(conv.Schema.DBNames, turnConversationColumns); diff != "" {
		t.Errorf("columns of conversations (-schema +turn read):\n%s", diff)
	}
	msg := &gorm.Statement{DB: db.gorm}
	mustNot(t, msg.Parse(&messageRow{}))
	for _, c := range turnMessageColumns {
		if !slices.Contains(msg.Schema.DBNames, c) {
			t.Errorf("the turn reads messages.%s, which the row does not have", c)
		}
	}
}
