package table

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits of a table definition.
const (
	MaxFields         = 50
	MaxNameLen        = 64
	MaxDescriptionLen = 1000
)

// namePattern is what table and field names look like: SQL identifiers
// that need no quoting, which also makes a table name a valid tool name.
var namePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// reservedNames are the system columns; fields may not take them.
var reservedNames = []string{ColumnID, ColumnUserID, ColumnCreatedAt, ColumnUpdatedAt}

// ValidateName checks a table or field name and names field when it is
// wrong.
func ValidateName(field, name string) error {
	if name == "" {
		return errs.Invalid(field, "is required")
	}
	if len(name) > MaxNameLen || !namePattern.MatchString(name) {
		return errs.Invalid(field, "must be 1-%d letters, digits or _, starting with a letter; got %q", MaxNameLen, name)
	}
	return nil
}

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == ModePerUser || m == ModeShared || m == ModeReadOnly }

// Valid reports whether t is a known field type.
func (t FieldType) Valid() bool {
	switch t {
	case TypeText, TypeInteger, TypeNumber, TypeBoolean, TypeDatetime:
		return true
	}
	return false
}

// ParseData reads "draft" or "online"; empty means online.
func ParseData(field, s string) (Data, error) {
	switch Data(s) {
	case "", DataOnline:
		return DataOnline, nil
	case DataDraft:
		return DataDraft, nil
	}
	return "", errs.Invalid(field, "must be draft or online, got %q", s)
}

// Validate checks a definition and names the first wrong field, e.g.
// "fields[2].type".
func (t *Table) Validate() error {
	if err := ValidateName("name", t.Name); err != nil {
		return err
	}
	if utf8.RuneCountInString(t.Description) > MaxDescriptionLen {
		return errs.Invalid("description", "must be at most %d characters", MaxDescriptionLen)
	}
	if !t.Mode.Valid() {
		return errs.Invalid("mode", "must be per_user, shared or read_only, got %q", t.Mode)
	}
	return validateFields(t.Fields)
}

func validateFields(fields []Field) error {
	if len(fields) == 0 {
		return errs.Invalid("fields", "at least one field is required")
	}
	if len(fields) > MaxFields {
		return errs.Invalid("fields", "at most %d fields", MaxFields)
	}
	seen := map[string]bool{}
	for i, f := range fields {
		at := "fields[" + strconv.Itoa(i) + "]"
		if err := ValidateName(at+".name", f.Name); err != nil {
			return err
		}
		key := strings.ToLower(f.Name)
		for _, r := range reservedNames {
			if key == r {
				return errs.Invalid(at+".name", "%q is a system column of every table; pick another name", f.Name)
			}
		}
		if seen[key] {
			return errs.Invalid(at+".name", "%q is used by another field (names ignore case)", f.Name)
		}
		seen[key] = true
		if !f.Type.Valid() {
			return errs.Invalid(at+".type", "must be text, integer, number, boolean or datetime, got %q", f.Type)
		}
		if utf8.RuneCountInString(f.Description) > MaxDescriptionLen {
			return errs.Invalid(at+".description", "must be at most %d characters", MaxDescriptionLen)
		}
	}
	return nil
}
