package tablestore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/tablestore/tablestoretest"
)

// BenchmarkRun measures the SQL tool's own cost per statement on each
// database: "guard" parses and rewrites only, "run" parses, rewrites and
// executes (what a tool call costs, less loading the table's definition),
// and "raw" executes the already rewritten statement, so run - raw is the
// guard's share. The table holds 1,000 rows of alice among 2,000.
func BenchmarkRun(b *testing.B) {
	stores := []struct {
		name string
		cfg  func(b *testing.B) Config
	}{
		{"sqlite", func(b *testing.B) Config { return Config{SQLitePath: filepath.Join(b.TempDir(), "tables.db")} }},
		{"mariadb", func(b *testing.B) Config { return Config{DSN: tablestoretest.MySQL(b)} }},
	}
	statements := []struct{ name, sql string }{
		{"select_by_id", "SELECT title, done FROM notes WHERE id = 500"},
		{"select_page", "SELECT * FROM notes WHERE done = FALSE ORDER BY id DESC LIMIT 20"},
		{"insert", "INSERT INTO notes (title, done, due) VALUES ('bench', FALSE, '2026-01-01 10:00:00')"},
		{"update", "UPDATE notes SET done = NOT done WHERE id = 500"},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			s := openStore(b, st.cfg(b))
			tb := benchTable(b, s)
			scope := table.Scope{Data: table.DataOnline, UserID: "alice"}
			for _, stmt := range statements {
				b.Run(stmt.name+"/guard", func(b *testing.B) {
					for b.Loop() {
						if _, err := s.guard.Rewrite(stmt.sql, s.policy(tb, scope)); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(stmt.name+"/run", func(b *testing.B) {
					for b.Loop() {
						if _, err := s.Run(context.Background(), tb, scope, stmt.sql); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(stmt.name+"/raw", func(b *testing.B) {
					rw, err := s.guard.Rewrite(stmt.sql, s.policy(tb, scope))
					if err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						rows, err := s.db.QueryContext(context.Background(), rw.SQL, rw.Args...)
						if err != nil {
							b.Fatal(err)
						}
						for rows.Next() {
						}
						_ = rows.Close()
					}
				})
			}
		})
	}
}

func benchTable(b *testing.B, s *Store) *table.Table {
	b.Helper()
	tb := create(b, s, notesTable(51))
	rows := make([]table.Row, 0, 2000)
	for i := range 2000 {
		rows = append(rows, table.Row{UserID: []string{"alice", "bob"}[i%2], Values: map[string]any{"title": "note", "done": i%3 == 0}})
	}
	if _, err := s.InsertRows(context.Background(), tb, table.DataOnline, rows); err != nil {
		b.Fatal(err)
	}
	return tb
}
