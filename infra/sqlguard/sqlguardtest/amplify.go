package sqlguardtest

import (
	"fmt"
	"strings"
)

// Reported is the statement that was reported to take 800 MB of memory on
// SQLite and to run unkillable for 20 minutes on MariaDB.
const Reported = "SELECT replace(replace(replace(replace(replace(replace(replace('aaaaaaaaaa','a','aaaaaaaaaa'),'a','aaaaaaaaaa'),'a','aaaaaaaaaa'),'a','aaaaaaaaaa'),'a','aaaaaaaaaa'),'a','aaaaaaaaaa'),'a','aaaaaaaaaa') FROM notes LIMIT 1"

// Bounded statements may run: what they compute is within the guard's
// bounds (sqlguard.MaxValueBytes), however long the table's text is.
const Bounded = "bounded"

// Amplifiers returns statements against notes that ask the database to
// build far more than they are long (REPLACE inside REPLACE, REPEAT, LPAD,
// CONCAT chains, costly LIKE patterns), each with what the guard must do:
// refuse it, or let it run because its result is bounded.
func Amplifiers() []Case {
	cases := []Case{
		{"replace 7 deep, as reported", Reported, Refused},
		{"replace 8 deep", replaceChain("'aaaaaaaaaa'", 8), Refused},
		{"replace 12 deep", replaceChain("title", 12), Refused},
		{"replace 20 deep", replaceChain("'a'", 20), Refused},
		{"replace by the text itself", "SELECT REPLACE(title, 'a', title) FROM notes", Refused},
		{"replace in WHERE", "SELECT id FROM notes WHERE " + replaceExpr("title", 7) + " = 'x'", Refused},
		{"replace in ORDER BY", "SELECT id FROM notes ORDER BY " + replaceExpr("title", 6), Refused},
		{"replace under SUBSTR", "SELECT SUBSTR(" + replaceExpr("title", 6) + ", 1, 10) FROM notes", Refused},
		{"replace under MAX", "SELECT MAX(" + replaceExpr("'aaaa'", 9) + ") FROM notes", Refused},
		{"replace under IF", "SELECT IF(done, " + replaceExpr("'aa'", 9) + ", 'x') FROM notes", Refused},
		{"repeat", "SELECT REPEAT('a', 1000000000) FROM notes", Refused},
		{"lpad", "SELECT LPAD('a', 1000000000, 'b') FROM notes", Refused},
		{"rpad", "SELECT RPAD(title, 1000000000, title) FROM notes", Refused},
		{"space", "SELECT SPACE(1000000000) FROM notes", Refused},
		{"zeroblob", "SELECT ZEROBLOB(1000000000) FROM notes", Refused},
		{"randomblob", "SELECT RANDOMBLOB(1000000000) FROM notes", Refused},
		{"cast to a padded binary", "SELECT CAST('a' AS BINARY(1000000000)) FROM notes", Refused},
		{"concat of 20 texts", "SELECT CONCAT(" + strings.Repeat("title, ", 19) + "title) FROM notes", Refused},
		{"concat doubling 6 deep", "SELECT " + doubling(6) + " FROM notes", Refused},
		{"upper 5 deep", "SELECT " + nest("UPPER(%s)", "title", 5) + " FROM notes", Refused},
		{"100 long columns of concat", "SELECT " + strings.Repeat("CONCAT(title, title), ", 99) + "title FROM notes", Refused},
		{"group_concat", "SELECT GROUP_CONCAT(title SEPARATOR '') FROM notes", Refused},
		{"regexp backtracking", "SELECT id FROM notes WHERE title REGEXP '(a+)+b'", Refused},
		{"like with many %", "SELECT id FROM notes WHERE title LIKE '%a%a%a%a%a%a%a%a%b'", Refused},
		{"like with a column as pattern", "SELECT id FROM notes WHERE title LIKE CONCAT(title, '%')", Refused},
		{"like with a long pattern", "SELECT id FROM notes WHERE title LIKE '" + strings.Repeat("_", 300) + "'", Refused},
		{"update doubling the text", "UPDATE notes SET title = CONCAT(title, title)", Refused},
		{"insert of an amplifier", "INSERT INTO notes (title) VALUES (" + replaceExpr("'aaaaaaaaaa'", 7) + ")", Refused},
		{"concat of 10 texts", "SELECT CONCAT(" + strings.Repeat("title, ", 9) + "title) FROM notes", Bounded},
		{"concat of every column", "SELECT CONCAT(id, title, done, due, created_at, updated_at) FROM notes", Bounded},
		{"replace of a whole text, quadratic on MariaDB", "SELECT LEFT(REPLACE(title, 'a', 'bbbb'), 10) FROM notes", Refused},
		{"replace by a column", "SELECT REPLACE(LEFT(title, 100), 'a', title) FROM notes", Refused},
		{"replace of a cut text", "SELECT REPLACE(LEFT(title, 1000), 'a', 'aaaaaaaaaa') FROM notes", Bounded},
		{"replace of the same length", "SELECT REPLACE(title, 'a', 'b') FROM notes", Bounded},
		{"upper 3 deep", "SELECT " + nest("UPPER(%s)", "title", 3) + " FROM notes", Bounded},
		{"nested case", "SELECT " + nest("CASE WHEN done THEN %s ELSE title END", "title", 40) + " FROM notes", Bounded},
		{"like with few %", "SELECT COUNT(*) FROM notes WHERE title LIKE '%a%b%c%'", Bounded},
		{"huge numbers", "SELECT 99999999999999999999999999999999999999 * 99999999999999999999999999999 FROM notes", Bounded},
		{"float overflow", "SELECT 1e308 * 1e308 FROM notes", Bounded},
		{"bigint overflow", "SELECT 9223372036854775807 + 1 FROM notes", Bounded},
		{"long IN list", "SELECT id FROM notes WHERE id IN (" + numbers(2000) + ")", Bounded},
	}
	return cases
}

// replaceExpr is REPLACE(... REPLACE(inner, 'a', 'aaaaaaaaaa') ...),
// depth deep: each level can make the text ten times longer.
func replaceExpr(inner string, depth int) string {
	return nest("REPLACE(%s, 'a', 'aaaaaaaaaa')", inner, depth)
}

func replaceChain(inner string, depth int) string {
	return "SELECT " + replaceExpr(inner, depth) + " FROM notes LIMIT 1"
}

// nest wraps inner in layout depth times.
func nest(layout, inner string, depth int) string {
	for range depth {
		inner = fmt.Sprintf(layout, inner)
	}
	return inner
}

// doubling is CONCAT(x, x) with x the same, depth deep.
func doubling(depth int) string {
	e := "title"
	for range depth {
		e = "CONCAT(" + e + ", " + e + ")"
	}
	return e
}

func numbers(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprint(i)
	}
	return strings.Join(parts, ", ")
}
