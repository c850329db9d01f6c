package tablestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard/sqlguardtest"
)

// markers are in rows alice must never see.
var markers = []string{"BOB-SECRET", "DRAFT-SECRET", "OTHER-SECRET"}

// TestHostileCorpus runs every hostile statement as alice on the online
// rows of notes, on SQLite and MariaDB: refused ones must be refused by
// the guard, confined ones must run; and whatever happened, bob's rows,
// the draft rows and the other table are unchanged and none of their
// contents, nor a physical name, shows in what alice gets back.
func TestHostileCorpus(t *testing.T) { forEachStore(t, testHostileCorpus) }

func testHostileCorpus(t *testing.T, s *Store) {
	ctx := context.Background()
	notes := create(t, s, notesTable(41))
	secrets := create(t, s, &table.Table{ID: 42, Name: "secrets", Mode: table.ModeShared, FieldSeq: 1,
		Fields: []table.Field{{ID: 1, Name: "secret", Type: table.TypeText}}})
	cases := sqlguardtest.Hostile(physicalTable(notes.ID, table.DataOnline), physicalTable(notes.ID, table.DataDraft))
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			seed(t, s, notes, secrets)
			before := snapshot(t, s, notes, secrets)
			res, err := s.Run(ctx, notes, table.Scope{Data: table.DataOnline, UserID: "alice"}, c.SQL)
			switch c.Expect {
			case sqlguardtest.Refused:
				if _, gerr := s.guard.Rewrite(c.SQL, s.policy(notes, table.Scope{Data: table.DataOnline, UserID: "alice"})); gerr == nil {
					t.Errorf("the guard accepted it (run: %+v, %v)", res, err)
				}
				if !errors.Is(err, errs.ErrInvalid) {
					t.Errorf("error = %v, want an ErrInvalid", err)
				}
			case sqlguardtest.Confined:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			}
			out, _ := json.Marshal(res)
			shown := string(out)
			if err != nil {
				shown += err.Error()
			}
			for _, m := range markers {
				if strings.Contains(shown, m) {
					t.Errorf("alice got %s: %s", m, shown)
				}
			}
			for _, name := range physicalName.FindAllString(shown, -1) {
				if !strings.Contains(c.SQL, name) { // echoing the statement's own words is no leak
					t.Errorf("the physical name %s shows: %s", name, shown)
				}
			}
			if after := snapshot(t, s, notes, secrets); after != before {
				t.Errorf("rows outside alice's online rows changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// seed resets the rows: alice's online notes, bob's, alice's draft, and
// the other table.
func seed(t testing.TB, s *Store, notes, secrets *table.Table) {
	t.Helper()
	ctx := context.Background()
	for _, name := range []string{physicalTable(notes.ID, table.DataOnline), physicalTable(notes.ID, table.DataDraft), physicalTable(secrets.ID, table.DataOnline)} {
		if _, err := s.db.ExecContext(ctx, "DELETE FROM "+quote(name)); err != nil {
			t.Fatal(err)
		}
	}
	insert := func(tb *table.Table, d table.Data, user, title string) {
		field := tb.Fields[0].Name
		if _, err := s.InsertRows(ctx, tb, d, []table.Row{{UserID: user, Values: map[string]any{field: title}}}); err != nil {
			t.Fatal(err)
		}
	}
	insert(notes, table.DataOnline, "alice", "alice one")
	insert(notes, table.DataOnline, "bob", "BOB-SECRET")
	insert(notes, table.DataOnline, "alice", "alice two")
	insert(notes, table.DataDraft, "alice", "DRAFT-SECRET")
	insert(secrets, table.DataOnline, "alice", "OTHER-SECRET")
}

// snapshot writes down every row alice's online statements must not
// change.
func snapshot(t testing.TB, s *Store, notes, secrets *table.Table) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT id, owner_uid, col_1, updated_at FROM " + physicalTable(notes.ID, table.DataOnline) + " WHERE owner_uid <> 'alice' ORDER BY id",
		"SELECT id, owner_uid, col_1, updated_at FROM " + physicalTable(notes.ID, table.DataDraft) + " ORDER BY id",
		"SELECT id, owner_uid, col_1, updated_at FROM " + physicalTable(secrets.ID, table.DataOnline) + " ORDER BY id",
	} {
		rows, err := s.db.QueryContext(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var owner, title, updated string
			if err := rows.Scan(&id, &owner, &title, &updated); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%d/%s/%s/%s; ", id, owner, title, updated)
		}
		_ = rows.Close()
		b.WriteString("| ")
	}
	return b.String()
}
