package sqlguard

import (
	"strings"
	"unicode/utf8"
)

// precheck refuses what is wrong before parsing: oversize or malformed
// text, and comments. Comments are refused outright rather than dropped:
// MySQL runs the text of /*! ... */, and hints ride in /*+ ... */, so a
// comment can hide a statement the model did not mean to show.
func precheck(sql string) error {
	if len(sql) > MaxSQLLen {
		return refuse("the statement is %d bytes; at most %d are allowed", len(sql), MaxSQLLen)
	}
	if !utf8.ValidString(sql) || strings.ContainsRune(sql, 0) {
		return refuse("the statement must be UTF-8 text without NUL characters")
	}
	if strings.TrimSpace(sql) == "" {
		return refuse("the sql argument is empty; write one SELECT, INSERT, UPDATE or DELETE statement")
	}
	return findComment(sql)
}

// findComment scans sql the way MySQL's lexer does, skipping quoted
// strings and identifiers, and refuses any comment it meets.
func findComment(sql string) error {
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; c {
		case '\'', '"', '`':
			end := closeQuote(sql, i)
			if end < 0 {
				return nil // unterminated: the parser reports it
			}
			i = end
		case '#':
			return refuse("comments (#) are not allowed; remove them")
		case '-':
			if i+1 < len(sql) && sql[i+1] == '-' {
				return refuse("comments (--) are not allowed; remove them (write a - -b for a minus a negative number)")
			}
		case '/':
			if i+1 < len(sql) && sql[i+1] == '*' {
				return refuse("comments (/* */), including hints and /*! */, are not allowed; remove them")
			}
		}
	}
	return nil
}

// closeQuote returns the index of the quote closing the one at start, or
// -1. Inside strings a backslash escapes the next byte; in every kind a
// doubled quote stands for itself.
func closeQuote(sql string, start int) int {
	q := sql[start]
	for i := start + 1; i < len(sql); i++ {
		switch sql[i] {
		case '\\':
			if q != '`' {
				i++
			}
		case q:
			if i+1 < len(sql) && sql[i+1] == q {
				i++
				continue
			}
			return i
		}
	}
	return -1
}
