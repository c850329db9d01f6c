package conversation

import (
	"unicode"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// MaxUserIDLen bounds an end user's id, in characters.
const MaxUserIDLen = 128

// CheckUserID refuses an end-user id that two clients could write
// differently for the same user, or that shows differently from what it
// is: empty, longer than max characters, not UTF-8, with leading or
// trailing white space, or with control or invisible format characters
// (NUL, tabs, zero-width spaces). Ids are compared byte for byte
// everywhere (tables' owners, variables), so "Alice" and "alice", or a
// Cyrillic "аlice", are other users, not errors. field names the request
// field in the errs.ErrInvalid; max is MaxUserIDLen less what the caller
// puts before the id.
func CheckUserID(field, id string, max int) error {
	const hint = "must be 1 to %d characters without leading or trailing spaces or control characters, identifying the end user"
	if id == "" || !utf8.ValidString(id) || utf8.RuneCountInString(id) > max {
		return errs.Invalid(field, hint, max)
	}
	first, _ := utf8.DecodeRuneInString(id)
	last, _ := utf8.DecodeLastRuneInString(id)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return errs.Invalid(field, hint+"; got %q", max, id)
	}
	for _, r := range id {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return errs.Invalid(field, hint+"; got %q", max, id)
		}
	}
	return nil
}
