package tablestore

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestRun(t *testing.T) { forEachStore(t, testRun) }

func testRun(t *testing.T, s *Store) {
	ctx := context.Background()
	tb := create(t, s, notesTable(11))
	online, draft := table.DataOnline, table.DataDraft

	t.Run("each user sees only their rows", func(t *testing.T) {
		ins := run(t, s, tb, online, "alice", "INSERT INTO notes (title, done, due) VALUES ('milk', FALSE, '2026-03-01 09:00:00'), ('bread', TRUE, NULL)")
		if !ins.Write || ins.Affected != 2 || ins.InsertID <= 0 {
			t.Fatalf("insert = %+v", ins)
		}
		run(t, s, tb, online, "bob", "INSERT INTO notes (title) VALUES ('bob only')")
		res := run(t, s, tb, online, "alice", "SELECT id, title, done, due FROM notes ORDER BY id")
		if diff := cmp.Diff([]any{"milk", "bread"}, column(res, "title")); diff != "" {
			t.Errorf("alice's titles (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]any{false, true}, column(res, "done")); diff != "" {
			t.Errorf("done (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]any{"2026-03-01 09:00:00", nil}, column(res, "due")); diff != "" {
			t.Errorf("due (-want +got):\n%s", diff)
		}
		if got := column(res, "id")[0]; got != ins.InsertID {
			t.Errorf("first id = %v, insert said %d", got, ins.InsertID)
		}
		bob := run(t, s, tb, online, "bob", "SELECT COUNT(*) AS n FROM notes")
		if diff := cmp.Diff([][]any{{int64(1)}}, bob.Rows); diff != "" {
			t.Errorf("bob's count (-want +got):\n%s", diff)
		}
		del := run(t, s, tb, online, "bob", "DELETE FROM notes")
		if del.Affected != 1 {
			t.Errorf("bob deleted %d rows, want his 1", del.Affected)
		}
		if n := len(run(t, s, tb, online, "alice", "SELECT * FROM notes").Rows); n != 2 {
			t.Errorf("alice has %d rows after bob's delete, want 2", n)
		}
	})

	t.Run("draft data is apart from online data", func(t *testing.T) {
		run(t, s, tb, draft, "alice", "INSERT INTO notes (title) VALUES ('draft note')")
		got := column(run(t, s, tb, draft, "alice", "SELECT title FROM notes"), "title")
		if diff := cmp.Diff([]any{"draft note"}, got); diff != "" {
			t.Errorf("draft titles (-want +got):\n%s", diff)
		}
		if n := len(run(t, s, tb, online, "alice", "SELECT * FROM notes WHERE title = 'draft note'").Rows); n != 0 {
			t.Errorf("the draft note shows in online data")
		}
	})

	t.Run("rows are capped", func(t *testing.T) {
		small := *s
		small.maxRows = 1
		res := run(t, &small, tb, online, "alice", "SELECT title FROM notes")
		if len(res.Rows) != 1 || !res.Truncated {
			t.Errorf("capped select = %+v, want 1 row, truncated", res)
		}
		res = run(t, &small, tb, online, "alice", "SELECT title FROM notes LIMIT 1")
		if len(res.Rows) != 1 || res.Truncated {
			t.Errorf("LIMIT 1 = %+v, want 1 row, not truncated", res)
		}
	})

	t.Run("database errors name logical columns", func(t *testing.T) {
		_, err := s.Run(ctx, tb, table.Scope{Data: online, UserID: "alice"}, "INSERT INTO notes (title, done) VALUES ('x', 'maybe')")
		wantErr(t, err, errs.ErrInvalid, "done")
		if physicalName.MatchString(err.Error()) {
			t.Errorf("error %q shows a physical name", err)
		}
		_, err = s.Run(ctx, tb, table.Scope{Data: online, UserID: "alice"}, "UPDATE notes SET due = 'not a date'")
		wantErr(t, err, errs.ErrInvalid, "due")
	})

	t.Run("read-only tables refuse writes", func(t *testing.T) {
		ro := tb.Clone()
		ro.Mode = table.ModeReadOnly
		_, err := s.Run(ctx, ro, table.Scope{Data: online, UserID: "alice"}, "DELETE FROM notes")
		wantErr(t, err, errs.ErrInvalid, "read-only")
		if n := len(run(t, s, ro, online, "anyone", "SELECT * FROM notes").Rows); n != 2 {
			t.Errorf("read-only select sees %d rows, want every row (2)", n)
		}
	})

	t.Run("shared tables show every row", func(t *testing.T) {
		sh := tb.Clone()
		sh.Mode = table.ModeShared
		run(t, s, sh, online, "carol", "INSERT INTO notes (title) VALUES ('from carol')")
		if n := len(run(t, s, sh, online, "dave", "SELECT * FROM notes").Rows); n != 3 {
			t.Errorf("dave sees %d rows of the shared table, want 3", n)
		}
	})

	t.Run("the time limit stops a statement", func(t *testing.T) {
		quick := *s
		quick.timeout = time.Nanosecond
		_, err := quick.Run(ctx, tb, table.Scope{Data: online, UserID: "alice"}, "SELECT * FROM notes")
		wantErr(t, err, errs.ErrInvalid, "ran longer than")
	})

	t.Run("functions work the same on both databases", func(t *testing.T) {
		res := run(t, s, tb, online, "alice", "SELECT UPPER(title) AS u, CONCAT(title, '!') AS c, YEAR(due) AS y, "+
			"DATE_ADD(due, INTERVAL 1 DAY) AS next, IF(done, 'yes', 'no') AS d, LEFT(title, 2) AS l, MOD(id, 1) AS m, "+
			"DATEDIFF('2026-03-05', '2026-03-01') AS dd FROM notes WHERE title = 'milk'")
		got, _ := json.Marshal(res.Rows) // as the model reads it: 4 and 4.0 alike
		if want := `[["MILK","milk!",2026,"2026-03-02 09:00:00","no","mi",0,4]]`; string(got) != want {
			t.Errorf("functions = %s, want %s", got, want)
		}
	})
}

func TestRunHugeUnsignedLiteral(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		tb := create(t, s, notesTable(81))
		res := run(t, s, tb, table.DataOnline, "alice", "SELECT COUNT(*) AS n FROM notes WHERE id = 18446744073709551615")
		if len(res.Rows) != 1 {
			t.Errorf("result = %+v", res)
		}
	})
}
