package sqlguard

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestRewriteAccepts(t *testing.T) {
	cases := []struct {
		name, sql string
		dialect   Dialect
		want      string
		args      []any
		cols      []string
	}{
		{"select star", "SELECT * FROM notes", MySQL,
			"SELECT `id` AS `a0`,`col_1` AS `a1`,`col_2` AS `a2`,`col_3` AS `a3`,`created_at` AS `a4`,`updated_at` AS `a5` FROM `tbl_7_online` WHERE `owner_uid`=? LIMIT 101",
			[]any{"alice"}, []string{"id", "title", "done", "due", "created_at", "updated_at"}},
		{"where, alias, order by alias", "select title as t, Done from NOTES n where n.title like 'a%' or done = true order by t desc limit 5", MySQL,
			"SELECT `col_1` AS `a0`,`col_2` AS `a1` FROM `tbl_7_online` WHERE `owner_uid`=? AND (`col_1` LIKE ? OR `col_2`=?) ORDER BY `a0` DESC LIMIT 5",
			[]any{"alice", "a%", int64(1)}, []string{"t", "done"}},
		{"aggregate and group", "SELECT done, COUNT(*) FROM notes GROUP BY done HAVING COUNT(*) > 1", MySQL,
			"SELECT `col_2` AS `a0`,COUNT(?) AS `a1` FROM `tbl_7_online` WHERE `owner_uid`=? GROUP BY `col_2` HAVING COUNT(?)>? LIMIT 101",
			[]any{int64(1), "alice", int64(1), int64(1)}, []string{"done", "COUNT(*)"}},
		{"insert", "INSERT INTO notes (title, done) VALUES ('a', false), ('b''s', 1)", MySQL,
			"INSERT INTO `tbl_7_online` (`col_1`,`col_2`,`owner_uid`,`created_at`,`updated_at`) VALUES (?,?,?,?,?),(?,?,?,?,?)",
			[]any{"a", int64(0), "alice", "2026-01-02 03:04:05", "2026-01-02 03:04:05", "b's", int64(1), "alice", "2026-01-02 03:04:05", "2026-01-02 03:04:05"}, nil},
		{"update", "UPDATE notes SET done = NOT done WHERE id IN (1, 2)", MySQL,
			"UPDATE `tbl_7_online` SET `col_2`=NOT `col_2`, `updated_at`=? WHERE `owner_uid`=? AND (`id` IN (?,?))",
			[]any{"2026-01-02 03:04:05", "alice", int64(1), int64(2)}, nil},
		{"delete everything of the caller", "DELETE FROM notes", MySQL,
			"DELETE FROM `tbl_7_online` WHERE `owner_uid`=?", []any{"alice"}, nil},
		{"sqlite functions", "SELECT concat(title, '!'), year(due), date_add(due, interval 2 week) FROM notes", SQLite,
			"SELECT `printf`(?, `col_1`, ?) AS `a0`,CAST(`strftime`(?, `col_3`) AS SIGNED) AS `a1`,`datetime`(`col_3`, ?) AS `a2` FROM `tbl_7_online` WHERE `owner_uid`=? LIMIT 101",
			[]any{"%s%s", "!", "%Y", "+14 days", "alice"}, []string{"concat(title, '!')", "year(due)", "date_add(due, interval 2 week)"}},
	}
	g := New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := g.Rewrite(c.sql, notes(c.dialect))
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			if st.SQL != c.want {
				t.Errorf("SQL\n got %s\nwant %s", st.SQL, c.want)
			}
			if diff := cmp.Diff(c.args, st.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			var cols []string
			for _, oc := range st.Columns {
				cols = append(cols, oc.Name)
			}
			if diff := cmp.Diff(c.cols, cols); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRewriteRefuses(t *testing.T) {
	cases := []struct{ name, sql, says string }{
		{"two statements", "SELECT * FROM notes; DELETE FROM notes", "exactly one statement"},
		{"other table", "SELECT * FROM users", "only table notes"},
		{"join", "SELECT * FROM notes JOIN users", "joins are not allowed"},
		{"subquery", "SELECT * FROM notes WHERE id IN (SELECT id FROM users)", "subquer"},
		{"union", "SELECT title FROM notes UNION SELECT email FROM users", "UNION"},
		{"comment", "SELECT * FROM notes /*! UNION SELECT 1 */", "comments"},
		{"sleep", "SELECT SLEEP(10) FROM notes", "function SLEEP is not allowed"},
		{"owner column", "SELECT owner_uid FROM notes", `unknown column "owner_uid"`},
		{"physical name", "SELECT col_1 FROM notes", `unknown column "col_1"`},
		{"insert id", "INSERT INTO notes (id, title) VALUES (1, 'x')", "set automatically"},
		{"required missing", "INSERT INTO notes (done) VALUES (1)", "title is required"},
		{"required null", "UPDATE notes SET title = NULL", "cannot be NULL"},
		{"insert select", "INSERT INTO notes (title) SELECT title FROM notes", "INSERT ... SELECT"},
		{"placeholder", "SELECT * FROM notes WHERE id = ?", "placeholders"},
		{"variable", "SELECT @@version FROM notes", "variable"},
		{"schema", "SELECT * FROM mysql.user", "do not name a database"},
		{"syntax", "SELECT * FORM notes", "syntax error"},
		{"drop", "DROP TABLE notes", "only SELECT, INSERT, UPDATE and DELETE"},
		{"sqlite trim", "SELECT TRIM(BOTH 'x' FROM title) FROM notes", "TRIM takes one argument"},
	}
	g := New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := g.Rewrite(c.sql, notes(SQLite))
			if !errors.Is(err, errs.ErrInvalid) {
				t.Fatalf("error = %v, want an ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("error %q does not say %q", err, c.says)
			}
		})
	}
}
