package sqlstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// BenchmarkTurnReads compares the one read a chat turn starts with to the
// two it replaced (the conversation, then its history), on a conversation
// of 40 rounds.
func BenchmarkTurnReads(b *testing.B) {
	for _, kind := range []string{"sqlite", "mariadb"} {
		b.Run(kind, func(b *testing.B) {
			db, c := benchConversation(b, kind)
			ctx := context.Background()
			b.Run("ConversationTurn", func(b *testing.B) {
				for b.Loop() {
					if _, _, err := db.Conversations().ConversationTurn(ctx, c.ID, 5); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("GetConversation+History", func(b *testing.B) {
				for b.Loop() {
					got, err := db.Conversations().GetConversation(ctx, c.ID)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := db.Messages().History(ctx, got.ID, got.SectionID, 5); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkTurnEnd compares EndTurn with FinishChat (a locked read, then
// every column written), each storing an answer and completing a chat.
func BenchmarkTurnEnd(b *testing.B) {
	for _, kind := range []string{"sqlite", "mariadb"} {
		b.Run(kind, func(b *testing.B) {
			db, c := benchConversation(b, kind)
			ctx := context.Background()
			chats := db.Chats()
			start := func() *conversation.Chat {
				chat := &conversation.Chat{WorkspaceID: wsA, ConversationID: c.ID, SectionID: c.SectionID, BotID: botX,
					Status: conversation.ChatInProgress}
				if err := chats.StartChat(ctx, chat, []*conversation.Message{question(c, "q")}); err != nil {
					b.Fatal(err)
				}
				return chat
			}
			complete := func(ch *conversation.Chat) error { ch.Status = conversation.ChatCompleted; return nil }
			b.Run("EndTurn", func(b *testing.B) {
				for b.Loop() {
					chat := start()
					out := *chat
					out.Status = conversation.ChatCompleted
					a := answer(c, "a")
					a.ChatID = chat.ID
					if _, err := chats.EndTurn(ctx, &out, []*conversation.Message{a}, complete); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("FinishChat", func(b *testing.B) {
				for b.Loop() {
					chat := start()
					a := answer(c, "a")
					a.ChatID = chat.ID
					if _, err := chats.FinishChat(ctx, c.ID, chat.ID, []*conversation.Message{a}, complete); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// benchConversation opens a migrated database of the kind named and a
// conversation of 40 rounds in it.
func benchConversation(b *testing.B, kind string) (*DB, *conversation.Conversation) {
	cfg := Config{SQLitePath: filepath.Join(b.TempDir(), "pergola.db")}
	if kind == "mariadb" {
		cfg = Config{DSN: testenv.MySQL(b)}
	}
	db, err := Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	c := &conversation.Conversation{WorkspaceID: wsA, BotID: botX, CreatorID: 1, ConnectorID: "1024"}
	if err := db.Conversations().CreateConversation(context.Background(), c); err != nil {
		b.Fatal(err)
	}
	var msgs []*conversation.Message
	for range 40 {
		msgs = append(msgs, question(c, "a question of some length"), answer(c, "an answer of some length, a little longer"))
	}
	if err := db.Messages().CreateMessages(context.Background(), msgs...); err != nil {
		b.Fatal(err)
	}
	return db, c
}
