package sqlguard_test

import (
	"errors"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
	"github.com/pergola-ai/pergola/infra/sqlguard/sqlguardtest"
)

// policy is notes (see sqlguardtest) in mode m for the dialect.
func policy(m table.Mode, d sqlguard.Dialect) *sqlguard.Policy {
	return &sqlguard.Policy{
		Table: "notes", Physical: "tbl_7_online",
		Columns: []sqlguard.Column{
			{Name: "id", Physical: "id", Type: table.TypeInteger},
			{Name: "title", Physical: "col_1", Type: table.TypeText, Writable: true, Required: true},
			{Name: "done", Physical: "col_2", Type: table.TypeBoolean, Writable: true},
			{Name: "due", Physical: "col_3", Type: table.TypeDatetime, Writable: true},
			{Name: "created_at", Physical: "created_at", Type: table.TypeDatetime},
			{Name: "updated_at", Physical: "updated_at", Type: table.TypeDatetime},
		},
		OwnerColumn: "owner_uid", Owner: "alice", Confine: m == table.ModePerUser, ReadOnly: m == table.ModeReadOnly,
		CreatedColumn: "created_at", UpdatedColumn: "updated_at", Now: "2026-01-02 03:04:05",
		MaxRows: 100, Dialect: d,
	}
}

// TestHostileCorpus checks every hostile statement against the guard
// alone: refused ones fail with ErrInvalid, confined ones pass the
// independent verifier. The stores run the corpus against real databases.
func TestHostileCorpus(t *testing.T) {
	g := sqlguard.New()
	cases := sqlguardtest.Hostile("tbl_7_online", "tbl_7_draft")
	if len(cases) < 50 {
		t.Fatalf("the corpus has %d statements; at least 50 are wanted", len(cases))
	}
	for _, d := range []sqlguard.Dialect{sqlguard.MySQL, sqlguard.SQLite} {
		for _, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				p := policy(table.ModePerUser, d)
				st, err := g.Rewrite(c.SQL, p)
				switch {
				case c.Expect == sqlguardtest.Refused && err == nil:
					t.Fatalf("accepted, rewritten to %s", st.SQL)
				case c.Expect == sqlguardtest.Refused && !errors.Is(err, errs.ErrInvalid):
					t.Fatalf("refused with %v, which is not an ErrInvalid", err)
				case c.Expect == sqlguardtest.Confined && err != nil:
					t.Fatalf("refused: %v", err)
				case err == nil:
					if err := sqlguardtest.Verify(st, p); err != nil {
						t.Fatalf("%s\n%v", st.SQL, err)
					}
				}
			})
		}
	}
}

// FuzzRewrite is the property of the guard: whatever the text, a statement
// it accepts touches only the bound physical table and, per_user, only the
// caller's rows; read_only lets only SELECT through; and a refusal is an
// ErrInvalid, never a panic. Run with go test -fuzz=FuzzRewrite; as a
// plain test it runs the seeds: the hostile corpus and valid statements.
func FuzzRewrite(f *testing.F) {
	for _, c := range sqlguardtest.Hostile("tbl_7_online", "tbl_7_draft") {
		if len(c.SQL) <= 4096 {
			f.Add(c.SQL)
		}
	}
	for _, s := range sqlguardtest.Valid() {
		f.Add(s)
	}
	g := sqlguard.New()
	policies := []*sqlguard.Policy{
		policy(table.ModePerUser, sqlguard.MySQL), policy(table.ModePerUser, sqlguard.SQLite),
		policy(table.ModeShared, sqlguard.MySQL), policy(table.ModeReadOnly, sqlguard.SQLite),
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, p := range policies {
			st, err := g.Rewrite(sql, p)
			if err != nil {
				if !errors.Is(err, errs.ErrInvalid) {
					t.Fatalf("%q: error %v is not an ErrInvalid", sql, err)
				}
				continue
			}
			if err := sqlguardtest.Verify(st, p); err != nil {
				t.Fatalf("%q (confine %v, read-only %v, dialect %d)\nrewritten: %s\n%v", sql, p.Confine, p.ReadOnly, p.Dialect, st.SQL, err)
			}
		}
	})
}
