package sqlguard

import (
	"fmt"
	"regexp"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Error is a refused statement. Its text is meant for the model: it says
// what is wrong and how to write the statement instead. It matches
// errs.ErrInvalid.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Is makes an Error match errs.ErrInvalid.
func (e *Error) Is(target error) bool { return target == errs.ErrInvalid }

func refuse(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// nearText finds the position in a TiDB syntax error.
var nearText = regexp.MustCompile(`line \d+ column \d+ near "(?s:.{0,80})`)

// syntaxError shortens a parser error to the position it names.
func syntaxError(err error) error {
	if m := nearText.FindString(err.Error()); m != "" {
		return refuse("syntax error at %s (MySQL syntax expected)", m)
	}
	return refuse("syntax error (MySQL syntax expected)")
}
