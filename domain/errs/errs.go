// Package errs is Pergola's small error vocabulary. Every layer wraps these
// sentinels with %w and a call-site prefix; the HTTP edge maps them, in one
// table, to a status code and a Coze-compatible numeric code.
package errs

import (
	"errors"
	"fmt"
)

// The sentinels. Callers test them with errors.Is.
var (
	ErrInvalid         = errors.New("invalid")
	ErrNotFound        = errors.New("not found")
	ErrConflict        = errors.New("conflict")
	ErrUnauthenticated = errors.New("unauthenticated")
	ErrForbidden       = errors.New("forbidden")
	ErrRateLimited     = errors.New("rate limited")
	ErrUnavailable     = errors.New("unavailable")
)

// FieldError reports an input field that is wrong and says how to fix it.
// It matches ErrInvalid under errors.Is.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Is makes a FieldError match ErrInvalid.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// Invalid returns a FieldError for field with a formatted reason.
func Invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// kindError is a message for users that matches one sentinel. Its text is
// the message alone, so what the API shows reads as plain language.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// New returns an error matching kind whose text is the formatted message.
func New(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// NotFound returns an error matching ErrNotFound that names what is missing,
// e.g. NotFound("workspace", "42") reads "workspace 42 not found".
func NotFound(kind, id string) error {
	return New(ErrNotFound, "%s %s not found", kind, id)
}

// Conflict returns an error matching ErrConflict with a formatted message.
func Conflict(format string, args ...any) error { return New(ErrConflict, format, args...) }

// Forbidden returns an error matching ErrForbidden with a formatted message.
func Forbidden(format string, args ...any) error { return New(ErrForbidden, format, args...) }

// Unauthenticated returns an error matching ErrUnauthenticated with a message.
func Unauthenticated(format string, args ...any) error {
	return New(ErrUnauthenticated, format, args...)
}
