package sqlstore

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TestConversationActiveBot: the bot a conversation was handed to is
// stored, read back by both reads a turn makes, and scoped to the
// workspace.
func TestConversationActiveBot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		store := db.Conversations()
		c := newConversation(t, db, wsA, botX)
		if c.ActiveBotID != 0 {
			t.Fatalf("a new conversation's active bot = %d, want 0", c.ActiveBotID)
		}
		mustNot(t, store.SetActiveBot(ctx, wsA, c.ID, botY))
		got, err := store.GetConversation(ctx, c.ID)
		mustNot(t, err)
		if got.ActiveBotID != botY {
			t.Fatalf("active bot = %d, want %d", got.ActiveBotID, botY)
		}
		turn, _, err := store.ConversationTurn(ctx, c.ID, 3)
		mustNot(t, err)
		if turn.ActiveBotID != botY {
			t.Fatalf("the turn's read: active bot = %d, want %d", turn.ActiveBotID, botY)
		}
		wantErr(t, store.SetActiveBot(ctx, wsB, c.ID, botX), errs.ErrNotFound, "not found")
		mustNot(t, store.SetActiveBot(ctx, wsA, c.ID, 0))
		got, _ = store.GetConversation(ctx, c.ID)
		if got.ActiveBotID != 0 {
			t.Fatalf("active bot after handing back = %d, want 0", got.ActiveBotID)
		}
	})
}
