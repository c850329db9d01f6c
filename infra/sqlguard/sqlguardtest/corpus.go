// Package sqlguardtest holds what tests of the SQL guard share: a corpus
// of hostile statements against a per_user table "notes" (fields title
// text required, done boolean, due datetime) stored beside a table
// "secrets" and the platform's own tables.
package sqlguardtest

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// Expectations of a hostile statement.
const (
	// Refused statements must be rejected before they reach a database.
	Refused = "refused"
	// Confined statements run, but reach only the caller's rows of notes.
	Confined = "confined"
)

// Case is one hostile statement.
type Case struct {
	Name   string `json:"name"`
	SQL    string `json:"sql"`
	Expect string `json:"expect"`
}

//go:embed hostile.json
var hostileJSON []byte

// Hostile returns the corpus, with {{physical}} and {{draft}} replaced by
// the physical names of the online and draft tables, and the generated
// cases: huge literals, long lists, deep nesting, long identifiers.
func Hostile(physical, draft string) []Case {
	var cases []Case
	if err := json.Unmarshal(hostileJSON, &cases); err != nil {
		panic("sqlguardtest: hostile.json: " + err.Error()) // the file ships with the package
	}
	r := strings.NewReplacer("{{physical}}", physical, "{{draft}}", draft)
	for i := range cases {
		cases[i].SQL = r.Replace(cases[i].SQL)
	}
	return append(cases, generated()...)
}

func generated() []Case {
	return []Case{
		{"huge string literal", "SELECT * FROM notes WHERE title = '" + strings.Repeat("a", 40_000) + "'", Refused},
		{"one-megabyte insert", "INSERT INTO notes (title) VALUES ('" + strings.Repeat("x", 1<<20) + "')", Refused},
		{"huge number", "SELECT * FROM notes WHERE id = 1" + strings.Repeat("0", 400), Refused},
		{"huge IN list", "SELECT * FROM notes WHERE id IN (" + strings.Repeat("1,", 5000) + "1)", Refused},
		{"deep nesting", "SELECT * FROM notes WHERE " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000), Refused},
		{"a thousand statements", strings.Repeat("SELECT * FROM notes;", 1000), Refused},
		{"long identifier", "SELECT * FROM " + strings.Repeat("n", 10_000), Refused},
		{"many rows", "INSERT INTO notes (title) VALUES " + strings.Repeat("('x'),", 200) + "('x')", Refused},
	}
}

// Valid returns statements the guard accepts on notes, as fuzz seeds.
func Valid() []string {
	return []string{
		"SELECT * FROM notes",
		"SELECT title, done FROM notes WHERE done = FALSE ORDER BY id DESC LIMIT 10 OFFSET 5",
		"SELECT done, COUNT(*) AS n FROM notes GROUP BY done HAVING n > 1 ORDER BY n",
		"SELECT UPPER(title), YEAR(due), DATE_ADD(due, INTERVAL 1 DAY) FROM notes WHERE due < NOW()",
		"SELECT * FROM notes WHERE title LIKE 'a%' AND id BETWEEN 1 AND 9 AND due IS NOT NULL",
		"INSERT INTO notes (title, done, due) VALUES ('a', TRUE, '2026-01-01 10:00:00'), ('b', 0, NULL)",
		"UPDATE notes SET done = NOT done, title = CONCAT(title, '!') WHERE id IN (1, 2, 3)",
		"DELETE FROM notes WHERE done = 1 OR title = ''",
	}
}
