package table

import (
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Row is one stored row as builders see it.
type Row struct {
	ID int64
	// UserID is the end user who owns the row (per_user mode) or who
	// added it; empty for rows added through the API without one.
	UserID    string
	Values    map[string]any // by field name; normalized (see FieldType.Normalize)
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Op is a comparison of a row filter.
type Op string

// Filter operations.
const (
	OpEq       Op = "eq"
	OpNe       Op = "ne"
	OpLt       Op = "lt"
	OpLe       Op = "le"
	OpGt       Op = "gt"
	OpGe       Op = "ge"
	OpContains Op = "contains" // text fields: a substring
	OpPrefix   Op = "prefix"   // text fields: a prefix
	OpNull     Op = "null"     // no value
	OpNotNull  Op = "notnull"  // any value
)

// Valid reports whether o is a known operation.
func (o Op) Valid() bool {
	switch o {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpContains, OpPrefix, OpNull, OpNotNull:
		return true
	}
	return false
}

// Filter keeps the rows whose Field compares to Value by Op. Field is a
// field name or a system column (id, user_id, created_at, updated_at).
type Filter struct {
	Field string
	Op    Op
	Value any
}

// RowQuery selects rows for builders. Rows come ordered by id; Desc turns
// the order round.
type RowQuery struct {
	Data    Data
	Filters []Filter
	Desc    bool
	// AfterID continues a scan after the row with this id (in the order
	// of the query); 0 starts at the beginning.
	AfterID int64
	Offset  int
	Limit   int // at most this many rows; 0 means 100
}

// ColumnType returns the type of a field or system column, and whether the
// table has it. user_id is text; id is an integer; the times are datetimes.
func (t *Table) ColumnType(name string) (FieldType, bool) {
	switch name {
	case ColumnID:
		return TypeInteger, true
	case ColumnUserID:
		return TypeText, true
	case ColumnCreatedAt, ColumnUpdatedAt:
		return TypeDatetime, true
	}
	f, ok := t.Field(name)
	return f.Type, ok
}

// CheckFilter validates a filter against the table and normalizes its
// value; errors name at.
func (t *Table) CheckFilter(at string, f *Filter) error {
	typ, ok := t.ColumnType(f.Field)
	if !ok {
		return errs.Invalid(at, "table %s has no column %q", t.Name, f.Field)
	}
	if !f.Op.Valid() {
		return errs.Invalid(at, "unknown operation %q; use eq, ne, lt, le, gt, ge, contains, prefix, null or notnull", f.Op)
	}
	if f.Op == OpNull || f.Op == OpNotNull {
		f.Value = nil
		return nil
	}
	if (f.Op == OpContains || f.Op == OpPrefix) && typ != TypeText {
		return errs.Invalid(at, "%s works on text columns only; %s is %s", f.Op, f.Field, typ)
	}
	v, err := typ.Normalize(f.Value)
	if err != nil {
		return errs.Invalid(at, "%s %s", f.Field, err)
	}
	if v == nil {
		return errs.Invalid(at, "needs a value; use null or notnull to test for none")
	}
	f.Value = v
	return nil
}

// CheckValues normalizes the values of a row written by a builder. With
// insert set, every required field must have a value; otherwise only the
// fields given are checked, and a required one may not be cleared.
// Errors name at and the field.
func (t *Table) CheckValues(at string, values map[string]any, insert bool) (map[string]any, error) {
	out := make(map[string]any, len(values))
	for name, v := range values {
		f, ok := t.Field(name)
		if !ok {
			return nil, errs.Invalid(at+"."+name, "table %s has no field %q", t.Name, name)
		}
		nv, err := f.Type.Normalize(v)
		if err != nil {
			return nil, errs.Invalid(at+"."+f.Name, "%s", err)
		}
		if nv == nil && f.Required {
			return nil, errs.Invalid(at+"."+f.Name, "is required")
		}
		out[f.Name] = nv
	}
	if insert {
		for _, f := range t.Fields {
			if _, ok := out[f.Name]; !ok && f.Required {
				return nil, errs.Invalid(at+"."+f.Name, "is required")
			}
		}
	}
	return out, nil
}

// Result is what a SQL statement of the tool answered.
type Result struct {
	// Columns and Rows hold what a SELECT returned, values normalized.
	Columns []string
	Rows    [][]any
	// Truncated is set when the SELECT had more rows than were returned.
	Truncated bool
	// Affected is how many rows an INSERT, UPDATE or DELETE changed.
	Affected int64
	// InsertID is the id of the first row an INSERT added.
	InsertID int64
	// Write tells a write's result from a read's.
	Write bool
}
