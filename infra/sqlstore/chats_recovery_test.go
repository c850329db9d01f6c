package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/conversation"
)

func TestChatRecovery(t *testing.T) { forEachBackend(t, testChatRecovery) }

// testChatRecovery runs two process instances on one database: the chats
// in progress of the one whose heartbeat stopped are failed, with the
// error, by the other; the live one's, and chats that ended, are kept.
func testChatRecovery(t *testing.T, db *DB) {
	ctx := context.Background()
	dead, live := db.Chats().WithInstance("host/1/dead"), db.Chats().WithInstance("host/2/live")
	conv := newConversation(t, db, wsA, botX)
	start := func(s *ChatStore, status conversation.ChatStatus) *conversation.Chat {
		t.Helper()
		c := &conversation.Chat{WorkspaceID: wsA, ConversationID: conv.ID, SectionID: conv.SectionID, BotID: botX,
			UserID: "u", ConnectorID: "1024", Status: status, MetaData: map[string]string{}}
		mustNot(t, s.StartChat(ctx, c, nil))
		return c
	}
	mustNot(t, dead.Heartbeat(ctx))
	mustNot(t, live.Heartbeat(ctx))
	orphan, done := start(dead, conversation.ChatInProgress), start(dead, conversation.ChatCompleted)
	running := start(live, conversation.ChatInProgress)
	// A chat of the dead process continued by the live one (client tool
	// outputs) is the live one's from then on.
	resumed := start(dead, conversation.ChatRequiresAction)
	_, err := live.UpdateChat(ctx, conv.ID, resumed.ID, func(c *conversation.Chat) error {
		c.Status = conversation.ChatInProgress
		return nil
	})
	mustNot(t, err)

	time.Sleep(20 * time.Millisecond)
	cutoff := time.Now()
	mustNot(t, live.Heartbeat(ctx))
	reason := conversation.ChatError{Code: 5000, Msg: "the process running this chat stopped"}
	n, err := live.FailOrphanedChats(ctx, cutoff, reason)
	mustNot(t, err)
	if n != 1 {
		t.Fatalf("failed %d chats, want 1 (the dead process's chat in progress)", n)
	}
	want := map[int64]conversation.ChatStatus{orphan.ID: conversation.ChatFailed, done.ID: conversation.ChatCompleted,
		running.ID: conversation.ChatInProgress, resumed.ID: conversation.ChatInProgress}
	for id, status := range want {
		got, err := db.Chats().GetChat(ctx, conv.ID, id)
		mustNot(t, err)
		if got.Status != status {
			t.Errorf("chat %d is %s, want %s", id, got.Status, status)
		}
	}
	got, _ := db.Chats().GetChat(ctx, conv.ID, orphan.ID)
	if got.LastError == nil || *got.LastError != reason || got.FailedAt == nil {
		t.Fatalf("the failed chat records %+v at %v, want %+v", got.LastError, got.FailedAt, reason)
	}
	// The live process does not fail its own chats, however old its beat.
	n, err = live.FailOrphanedChats(ctx, time.Now().Add(time.Hour), reason)
	mustNot(t, err)
	if n != 0 {
		t.Fatalf("the live process failed %d of its own chats", n)
	}
	mustNot(t, dead.Forget(ctx))
	mustNot(t, live.Forget(ctx))
}
