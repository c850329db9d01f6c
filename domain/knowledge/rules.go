package knowledge

import (
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Name and text bounds, in characters.
const (
	MaxBaseNameLen     = 100
	MaxDescriptionLen  = 2000
	MaxDocumentNameLen = 255
)

// Limits bound what a knowledge base holds; the zero value of a field
// takes its default (DefaultLimits).
type Limits struct {
	DocumentsPerBase  int   // documents in one knowledge base
	ChunksPerDocument int   // chunks one document may be cut into
	FileBytes         int64 // bytes of one document's source
	ChunkChars        int   // characters of one chunk written by hand
	DocumentsPerCall  int   // documents added by one request
}

// DefaultLimits are the limits unless configured otherwise.
var DefaultLimits = Limits{DocumentsPerBase: 1000, ChunksPerDocument: 10000, FileBytes: 100 << 20,
	ChunkChars: 10000, DocumentsPerCall: 50}

// WithDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	if l.DocumentsPerBase > 0 {
		d.DocumentsPerBase = l.DocumentsPerBase
	}
	if l.ChunksPerDocument > 0 {
		d.ChunksPerDocument = l.ChunksPerDocument
	}
	if l.FileBytes > 0 {
		d.FileBytes = l.FileBytes
	}
	if l.ChunkChars > 0 {
		d.ChunkChars = l.ChunkChars
	}
	if l.DocumentsPerCall > 0 {
		d.DocumentsPerCall = l.DocumentsPerCall
	}
	return d
}

// CheckName validates a name given for field, at most max characters,
// and returns it trimmed; errs.ErrInvalid names the field.
func CheckName(field, name string, max int) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errs.Invalid(field, "is required")
	case utf8.RuneCountInString(name) > max:
		return "", errs.Invalid(field, "is %d characters long; at most %d are allowed", utf8.RuneCountInString(name), max)
	case strings.ContainsAny(name, "\x00\r\n"):
		return "", errs.Invalid(field, "must be one line of text")
	}
	return name, nil
}

// CheckDescription validates a description (errs.ErrInvalid).
func CheckDescription(d string) error {
	if n := utf8.RuneCountInString(d); n > MaxDescriptionLen {
		return errs.Invalid("description", "is %d characters long; at most %d are allowed", n, MaxDescriptionLen)
	}
	return nil
}

// Terminal reports whether a status is an end of indexing.
func (s Status) Terminal() bool { return s == StatusReady || s == StatusFailed || s == StatusDisabled }

// String names a status as the console API shows it.
func (s Status) String() string {
	switch s {
	case StatusProcessing:
		return "processing"
	case StatusReady:
		return "ready"
	case StatusDisabled:
		return "disabled"
	case StatusFailed:
		return "failed"
	}
	return "unknown"
}
