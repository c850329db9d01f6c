package tablestore

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/tablestore/tablestoretest"
)

// TestOwnersExact checks that a per_user row is reached by its owner's id
// exactly: ids that a collation would take as equal (a trailing space,
// another case, a Cyrillic look-alike, a trailing NUL) see and change
// nothing of it, on SQLite and on MariaDB.
func TestOwnersExact(t *testing.T) { forEachStore(t, testOwnersExact) }

func testOwnersExact(t *testing.T, s *Store) {
	tb := create(t, s, notesTable(81))
	run(t, s, tb, table.DataOnline, "alice", "INSERT INTO notes (title) VALUES ('of alice')")
	for _, user := range []string{"alice ", "Alice", "ALICE", "\u0430lice", "alice\x00", " alice", "alice\t"} {
		if n := run(t, s, tb, table.DataOnline, user, "SELECT COUNT(*) AS n FROM notes").Rows[0][0]; n != int64(0) {
			t.Errorf("%q counts %v of alice's rows", user, n)
		}
		if res := run(t, s, tb, table.DataOnline, user, "UPDATE notes SET title = 'taken'"); res.Affected != 0 {
			t.Errorf("%q updated %d of alice's rows", user, res.Affected)
		}
	}
	if got := run(t, s, tb, table.DataOnline, "alice", "SELECT title FROM notes").Rows; len(got) != 1 || got[0][0] != "of alice" {
		t.Errorf("alice reads %v", got)
	}
}

// TestOwnersConverted checks that a physical table made when the owner
// column was a padded VARCHAR is converted when the store opens.
func TestOwnersConverted(t *testing.T) {
	cfg := Config{DSN: tablestoretest.MySQL(t)}
	s := openStore(t, cfg)
	tb := create(t, s, notesTable(82))
	ctx := context.Background()
	if _, err := s.DB().ExecContext(ctx, "ALTER TABLE "+quote(physicalTable(tb.ID, table.DataOnline))+
		" MODIFY `owner_uid` VARCHAR(255) COLLATE utf8mb4_bin NOT NULL DEFAULT ''"); err != nil {
		t.Fatal(err)
	}
	run(t, s, tb, table.DataOnline, "alice", "INSERT INTO notes (title) VALUES ('of alice')")
	s2 := openStore(t, cfg)
	if n := run(t, s2, tb, table.DataOnline, "alice ", "SELECT COUNT(*) AS n FROM notes").Rows[0][0]; n != int64(0) {
		t.Errorf("after the conversion %q counts %v of alice's rows", "alice ", n)
	}
	if n := run(t, s2, tb, table.DataOnline, "alice", "SELECT COUNT(*) AS n FROM notes").Rows[0][0]; n != int64(1) {
		t.Errorf("after the conversion alice counts %v rows", n)
	}
}
