package sqlstore

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/variable"
)

// TestEndUserIDsExact checks that variables are kept per end-user id
// exactly, on SQLite and on MariaDB after migration 8: ids a collation
// would take as alice's (a trailing space, another case, a Cyrillic
// look-alike) neither read her values nor overwrite them.
func TestEndUserIDsExact(t *testing.T) { forEachBackend(t, testEndUserIDsExact) }

func testEndUserIDsExact(t *testing.T, db *DB) {
	ctx := context.Background()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "W", ada.ID)
	b := newStoredBot(t, db, ws.ID, ada.ID, "one")
	alice := variable.Scope{BotID: b.ID, ConnectorID: "1024", UserID: "alice"}
	mustNot(t, db.Variables().SetValues(ctx, alice, []variable.KV{{Keyword: "city", Value: "Paris"}}))
	for _, id := range []string{"alice ", "Alice", "ALICE", "\u0430lice"} {
		other := alice
		other.UserID = id
		if got := storedKVs(t, db, other); len(got) != 0 {
			t.Errorf("%q reads alice's values %v", id, got)
		}
		mustNot(t, db.Variables().SetValues(ctx, other, []variable.KV{{Keyword: "city", Value: "Rome"}}))
	}
	spaced := alice
	spaced.ConnectorID = "1024 "
	if got := storedKVs(t, db, spaced); len(got) != 0 {
		t.Errorf("channel %q reads alice's values %v", spaced.ConnectorID, got)
	}
	if got := storedKVs(t, db, alice); got["city"] != "Paris" {
		t.Errorf("alice's values became %v", got)
	}
	if got := storedKVs(t, db, alice, "city "); len(got) != 0 {
		t.Errorf("keyword %q reads %v", "city ", got)
	}
}
