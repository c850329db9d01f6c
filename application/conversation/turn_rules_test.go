package conversation_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// countingAccess is fakeAccess that counts the membership checks.
type countingAccess struct {
	fakeAccess
	checks atomic.Int32
}

func (a *countingAccess) Authorize(ctx context.Context, p identity.Principal, ws int64, min identity.Role) (*identity.Member, error) {
	a.checks.Add(1)
	return a.fakeAccess.Authorize(ctx, p, ws, min)
}

// countingBots is fakeBots that counts the lookups.
type countingBots struct {
	fakeBots
	lookups atomic.Int32
}

func (b *countingBots) BotWorkspace(ctx context.Context, bot int64) (int64, error) {
	b.lookups.Add(1)
	return b.fakeBots.BotWorkspace(ctx, bot)
}

// TestResolveTurn checks the read a chat turn starts with: the history
// comes with the conversation, the membership the runtime vouches for is
// not asked again, and everything else is checked as ResolveConversation
// checks it.
func TestResolveTurn(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")})
	must(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.Migrate(ctx)
	must(t, err)
	access := &countingAccess{fakeAccess: fakeAccess{
		members:  map[int64][]int64{wsAda: {ada}, wsBob: {bob}, wsTeam: {ada}},
		personal: map[int64]int64{ada: wsAda, bob: wsBob},
	}}
	bots := &countingBots{fakeBots: fakeBots{botTeam: wsTeam, botBob: wsBob}}
	svc := convapp.New(db.Conversations(), db.Messages(), db.Chats(), access, bots)
	team, err := svc.Create(ctx, caller(ada), convapp.CreateInput{BotID: botTeam,
		Messages: []convapp.MessageInput{text("user", "q1"), text("assistant", "a1"), text("user", "q2")}})
	must(t, err)
	unbound, err := svc.Create(ctx, caller(bob), convapp.CreateInput{})
	must(t, err)
	reset := func() { access.checks.Store(0); bots.lookups.Store(0) }
	turn := func(p identity.Principal, q convapp.TurnQuery) ([]string, error) {
		t.Helper()
		c, history, err := svc.ResolveTurn(ctx, p, q)
		if err != nil {
			return nil, err
		}
		if q.ConversationID != 0 && c.ID != q.ConversationID {
			t.Fatalf("resolved conversation %d, want %d", c.ID, q.ConversationID)
		}
		var out []string
		for _, m := range history {
			out = append(out, m.Content)
		}
		return out, nil
	}

	t.Run("vouched membership is not asked again", func(t *testing.T) {
		reset()
		got, err := turn(caller(ada), convapp.TurnQuery{ConversationID: team.ID, BotID: botTeam, MemberOf: wsTeam, HistoryRounds: 1})
		must(t, err)
		if !slices.Equal(got, []string{"q2"}) || access.checks.Load() != 0 {
			t.Fatalf("history %v after %d membership checks; want [q2] and none", got, access.checks.Load())
		}
		got, err = turn(caller(ada), convapp.TurnQuery{ConversationID: team.ID, BotID: botTeam, MemberOf: wsTeam, HistoryRounds: 5})
		must(t, err)
		if !slices.Equal(got, []string{"q1", "a1", "q2"}) {
			t.Fatalf("history of 5 rounds = %v", got)
		}
	})

	t.Run("anything else is checked", func(t *testing.T) {
		reset()
		_, err := turn(caller(ada), convapp.TurnQuery{ConversationID: team.ID, BotID: botTeam, HistoryRounds: 1})
		must(t, err)
		if access.checks.Load() != 1 {
			t.Fatalf("%d membership checks without MemberOf, want 1", access.checks.Load())
		}
		// Bob's conversation is not in the workspace the runtime vouched for.
		_, err = turn(caller(ada), convapp.TurnQuery{ConversationID: unbound.ID, BotID: botTeam, MemberOf: wsTeam, HistoryRounds: 1})
		wantErr(t, err, errs.ErrNotFound, "conversation")
		_, err = turn(caller(bob), convapp.TurnQuery{ConversationID: team.ID, BotID: botTeam, HistoryRounds: 1})
		wantErr(t, err, errs.ErrNotFound, "conversation")
		_, err = turn(caller(ada), convapp.TurnQuery{ConversationID: 424242, BotID: botTeam, MemberOf: wsTeam, HistoryRounds: 1})
		wantErr(t, err, errs.ErrNotFound, "conversation 424242")
		_, err = turn(caller(ada), convapp.TurnQuery{ConversationID: team.ID, BotID: botBob, MemberOf: wsTeam, HistoryRounds: 1})
		wantField(t, err, "conversation_id")
		_, err = turn(identity.Principal{UserID: ada, Scopes: []string{identity.ScopeBot}}, convapp.TurnQuery{ConversationID: team.ID,
			BotID: botTeam, MemberOf: wsTeam})
		if !errors.Is(err, errs.ErrForbidden) {
			t.Fatalf("a token without the chat scope: %v", err)
		}
	})

	t.Run("a new conversation in the vouched workspace", func(t *testing.T) {
		reset()
		c, history, err := svc.ResolveTurn(ctx, caller(ada), convapp.TurnQuery{BotID: botTeam, MemberOf: wsTeam, HistoryRounds: 3})
		must(t, err)
		if c.WorkspaceID != wsTeam || c.BotID != botTeam || c.ConnectorID != convapp.DefaultConnector || len(history) != 0 {
			t.Fatalf("new conversation %+v, history %v", c, history)
		}
		if bots.lookups.Load() != 0 || access.checks.Load() != 0 {
			t.Fatalf("%d bot lookups and %d membership checks for a vouched bot, want none", bots.lookups.Load(), access.checks.Load())
		}
		_, _, err = svc.ResolveTurn(ctx, caller(bob), convapp.TurnQuery{BotID: botTeam, HistoryRounds: 3})
		wantErr(t, err, errs.ErrNotFound, "bot 100")
		_, _, err = svc.ResolveTurn(ctx, caller(ada), convapp.TurnQuery{MemberOf: wsTeam})
		wantField(t, err, "bot_id")
	})
}
