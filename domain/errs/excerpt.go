package errs

import (
	"strings"
	"unicode/utf8"
)

// MaxExcerpt is how much of another system's words (an upstream answer's
// body or message) an error quotes by default, in characters.
const MaxExcerpt = 300

// Excerpt shortens text another system sent for an error message or a
// log: white space runs become one space, invalid UTF-8 is replaced, and
// past max characters it is cut with an ellipsis, so an upstream that
// answers with a page of HTML or a megabyte of JSON cannot flood the
// error, the log or the client.
func Excerpt(s string, max int) string {
	if len(s) > 4*max+16 {
		s = s[:4*max+16] // enough bytes for max characters; the rest is cut anyway
	}
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}
