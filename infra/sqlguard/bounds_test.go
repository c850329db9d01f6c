package sqlguard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
	"github.com/pergola-ai/pergola/infra/sqlguard/sqlguardtest"
)

// TestAmplifiersRefused checks the amplification corpus against the guard
// alone, on both dialects: amplifiers are refused with an ErrInvalid the
// model can act on, bounded statements are accepted. The stores run the
// same corpus against real databases.
func TestAmplifiersRefused(t *testing.T) {
	g := sqlguard.New()
	cases := sqlguardtest.Amplifiers()
	if len(cases) < 30 {
		t.Fatalf("the corpus has %d statements; at least 30 are wanted", len(cases))
	}
	if cases[0].SQL != sqlguardtest.Reported {
		t.Fatalf("the corpus does not start with the reported statement")
	}
	for _, d := range []sqlguard.Dialect{sqlguard.MySQL, sqlguard.SQLite} {
		for _, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				st, err := g.Rewrite(c.SQL, policy(table.ModePerUser, d))
				switch {
				case c.Expect == sqlguardtest.Refused && err == nil:
					t.Fatalf("accepted, rewritten to %.300s", st.SQL)
				case c.Expect == sqlguardtest.Refused && !errors.Is(err, errs.ErrInvalid):
					t.Fatalf("refused with %v, which is not an ErrInvalid", err)
				case c.Expect == sqlguardtest.Bounded && err != nil:
					t.Fatalf("refused: %v", err)
				}
			})
		}
	}
}

// TestBoundMessages checks that a refusal says what to change.
func TestBoundMessages(t *testing.T) {
	cases := []struct{ name, sql, says string }{
		{"nested replace", sqlguardtest.Amplifiers()[0].SQL, "over the limit of 1024 KiB"},
		{"write", "UPDATE notes SET title = CONCAT(title, '!')", "LEFT("},
		{"like", "SELECT id FROM notes WHERE title LIKE title", "must be a quoted string"},
		{"quadratic replace", "SELECT REPLACE(title, 'a', 'bb') FROM notes", "cut the text first"},
		{"wide row", "SELECT " + strings.Repeat("CONCAT(title, title), ", 99) + "title FROM notes", "select fewer columns"},
	}
	g := sqlguard.New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := g.Rewrite(c.sql, policy(table.ModeShared, sqlguard.SQLite))
			if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error = %v, want one saying %q", err, c.says)
			}
		})
	}
	if _, err := g.Rewrite("UPDATE notes SET title = CONCAT(LEFT(title, 1000), '!')", policy(table.ModeShared, sqlguard.MySQL)); err != nil {
		t.Errorf("a bounded UPDATE is refused: %v", err)
	}
}
