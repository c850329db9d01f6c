package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/variable"
)

func TestVariableStore(t *testing.T) { forEachBackend(t, testVariableStore) }

// storedKVs returns keyword=value of the stored values of a scope.
func storedKVs(t *testing.T, db *DB, sc variable.Scope, keywords ...string) map[string]string {
	t.Helper()
	vals, err := db.Variables().GetValues(context.Background(), sc, keywords)
	mustNot(t, err)
	out := map[string]string{}
	for _, v := range vals {
		if v.BotID != sc.BotID || v.ConnectorID != sc.ConnectorID || v.UserID != sc.UserID {
			t.Errorf("value %+v is outside scope %+v", v, sc)
		}
		out[v.Keyword] = v.Value
	}
	return out
}

func testVariableStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Variables()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "W", ada.ID)
	b1 := newStoredBot(t, db, ws.ID, ada.ID, "one")
	b2 := newStoredBot(t, db, ws.ID, ada.ID, "two")
	scope := variable.Scope{BotID: b1.ID, ConnectorID: "1024", UserID: "user-1"}

	t.Run("set then get", func(t *testing.T) {
		mustNot(t, store.SetValues(ctx, scope, []variable.KV{{Keyword: "city", Value: "Paris"}, {Keyword: "name", Value: "Ada"}}))
		if got := storedKVs(t, db, scope); !cmp.Equal(got, map[string]string{"city": "Paris", "name": "Ada"}) {
			t.Errorf("values = %v", got)
		}
		if got := storedKVs(t, db, scope, "name", "unknown"); !cmp.Equal(got, map[string]string{"name": "Ada"}) {
			t.Errorf("values of name = %v", got)
		}
	})

	t.Run("upsert keeps the creation time", func(t *testing.T) {
		before, _ := store.GetValues(ctx, scope, []string{"city"})
		db.now = func() time.Time { return time.Now().Add(time.Hour) }
		defer func() { db.now = time.Now }()
		mustNot(t, store.SetValues(ctx, scope, []variable.KV{{Keyword: "city", Value: "Lyon"}, {Keyword: "mood", Value: "good"}}))
		after, _ := store.GetValues(ctx, scope, []string{"city"})
		if after[0].Value != "Lyon" || !after[0].CreatedAt.Equal(before[0].CreatedAt) || !after[0].UpdatedAt.After(before[0].UpdatedAt) {
			t.Errorf("city before %+v, after %+v; want the new value, the first creation time and a later update time", before[0], after[0])
		}
		if got := storedKVs(t, db, scope); len(got) != 3 || got["name"] != "Ada" {
			t.Errorf("values = %v, want name kept and mood added", got)
		}
	})

	t.Run("a keyword given twice keeps the last value", func(t *testing.T) {
		mustNot(t, store.SetValues(ctx, scope, []variable.KV{{Keyword: "mood", Value: "a"}, {Keyword: "mood", Value: "b"}}))
		if got := storedKVs(t, db, scope, "mood"); got["mood"] != "b" {
			t.Errorf("mood = %q, want b", got["mood"])
		}
	})

	t.Run("scoped by bot, connector and user", func(t *testing.T) {
		others := []variable.Scope{
			{BotID: b2.ID, ConnectorID: "1024", UserID: "user-1"},
			{BotID: b1.ID, ConnectorID: "999", UserID: "user-1"},
			{BotID: b1.ID, ConnectorID: "1024", UserID: "user-2"},
			{BotID: b1.ID, ConnectorID: "1024", UserID: "USER-1"},
		}
		for _, o := range others {
			if got := storedKVs(t, db, o); len(got) != 0 {
				t.Errorf("scope %+v sees %v", o, got)
			}
		}
		mustNot(t, store.SetValues(ctx, others[0], []variable.KV{{Keyword: "city", Value: "Rome"}}))
		mustNot(t, store.DeleteValues(ctx, others[0], nil))
		if got := storedKVs(t, db, scope, "city"); got["city"] != "Lyon" {
			t.Errorf("another bot's write or delete changed city to %q", got["city"])
		}
	})

	t.Run("delete some, then all", func(t *testing.T) {
		mustNot(t, store.DeleteValues(ctx, scope, []string{"mood", "never-set"}))
		if got := storedKVs(t, db, scope); len(got) != 2 || got["mood"] != "" {
			t.Errorf("after deleting mood: %v", got)
		}
		mustNot(t, store.DeleteValues(ctx, scope, nil))
		if got := storedKVs(t, db, scope); len(got) != 0 {
			t.Errorf("after deleting all: %v", got)
		}
	})

	t.Run("unknown bot", func(t *testing.T) {
		err := store.SetValues(ctx, variable.Scope{BotID: 31337, ConnectorID: "1024", UserID: "u"}, []variable.KV{{Keyword: "k", Value: "v"}})
		wantErr(t, err, errs.ErrNotFound, "bot 31337 not found")
	})
}
