package tablestore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/tablestore/tablestoretest"
)

// forEachStore runs suite against a store on SQLite and one on MariaDB
// reached by a user that may use the rows' database only.
func forEachStore(t *testing.T, suite func(t *testing.T, s *Store)) {
	t.Helper()
	configs := []struct {
		name string
		cfg  func(t *testing.T) Config
	}{
		{"sqlite", func(t *testing.T) Config { return Config{SQLitePath: filepath.Join(t.TempDir(), "tables.db")} }},
		{"mariadb", func(t *testing.T) Config { return Config{DSN: tablestoretest.MySQL(t)} }},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) { suite(t, openStore(t, c.cfg(t))) })
	}
}

func openStore(t testing.TB, cfg Config) *Store {
	t.Helper()
	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// notesTable is a per_user table like the one of the hostile corpus.
func notesTable(id int64) *table.Table {
	return &table.Table{ID: id, WorkspaceID: 1, Name: "notes", Mode: table.ModePerUser, FieldSeq: 3, Fields: []table.Field{
		{ID: 1, Name: "title", Type: table.TypeText, Required: true},
		{ID: 2, Name: "done", Type: table.TypeBoolean},
		{ID: 3, Name: "due", Type: table.TypeDatetime},
	}}
}

func create(t testing.TB, s *Store, tb *table.Table) *table.Table {
	t.Helper()
	if err := s.CreateTable(context.Background(), tb); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return tb
}

// run runs sql as user on d and fails the test on an error.
func run(t testing.TB, s *Store, tb *table.Table, d table.Data, user, sql string) *table.Result {
	t.Helper()
	res, err := s.Run(context.Background(), tb, table.Scope{Data: d, UserID: user}, sql)
	if err != nil {
		t.Fatalf("Run(%q as %s): %v", sql, user, err)
	}
	return res
}

func wantErr(t *testing.T, err, target error, text string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q does not mention %q", err, text)
	}
}

// column returns the values of one column of a result.
func column(res *table.Result, name string) []any {
	var out []any
	for i, c := range res.Columns {
		if c != name {
			continue
		}
		for _, r := range res.Rows {
			out = append(out, r[i])
		}
	}
	return out
}
