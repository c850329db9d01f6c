package tablestore

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard/sqlguardtest"
)

// FuzzRunConfined runs what the fuzzer writes as alice on a real SQLite
// store and checks the property end to end: bob's rows, the draft rows and
// the other table never change, and alice never reads their contents.
// As a plain test it runs the seeds: the hostile corpus and valid
// statements. (sqlguard's FuzzRewrite checks the same property on the
// rewritten statements alone, much faster.)
func FuzzRunConfined(f *testing.F) {
	for _, c := range sqlguardtest.Hostile("tbl_71_online", "tbl_71_draft") {
		if len(c.SQL) <= 4096 {
			f.Add(c.SQL)
		}
	}
	for _, s := range sqlguardtest.Valid() {
		f.Add(s)
	}
	s := openStore(f, Config{SQLitePath: filepath.Join(f.TempDir(), "tables.db")})
	notes := create(f, s, notesTable(71))
	secrets := create(f, s, &table.Table{ID: 72, Name: "secrets", Mode: table.ModeShared, FieldSeq: 1,
		Fields: []table.Field{{ID: 1, Name: "secret", Type: table.TypeText}}})
	seed(f, s, notes, secrets)
	before := snapshot(f, s, notes, secrets)
	runs := 0
	f.Fuzz(func(t *testing.T, sql string) {
		if runs++; runs%500 == 0 { // keep alice's rows from growing without end
			seed(t, s, notes, secrets)
			before = snapshot(t, s, notes, secrets)
		}
		res, err := s.Run(context.Background(), notes, table.Scope{Data: table.DataOnline, UserID: "alice"}, sql)
		if err != nil && !errors.Is(err, errs.ErrInvalid) {
			t.Fatalf("%q failed with %v; a statement's fault must be an ErrInvalid the model can read", sql, err)
		}
		out, _ := json.Marshal(res)
		for _, m := range markers {
			if strings.Contains(string(out), m) && !strings.Contains(sql, m) {
				t.Fatalf("%q showed %s: %s", sql, m, out)
			}
		}
		if after := snapshot(t, s, notes, secrets); after != before {
			t.Fatalf("%q (error %v) changed rows outside alice's online rows:\nbefore %s\nafter  %s", sql, err, before, after)
		}
	})
}
