// Package table holds tables: the SQL tables a builder defines in a
// workspace and binds to bots. Each bound table gives the bot one SQL tool.
// A table's rows are kept per end user or shared by all, and the rows of
// a builder's debug chats (the draft data) apart from those of published
// channels (the online data).
package table

import (
	"strings"
	"time"
)

// Mode says who sees which rows, and whether the model may write.
type Mode string

// Modes of a table.
const (
	// ModePerUser gives each end user their own rows: the model sees and
	// changes only the rows of the user it talks to.
	ModePerUser Mode = "per_user"
	// ModeShared lets every end user see and change every row.
	ModeShared Mode = "shared"
	// ModeReadOnly lets the model read every row and write none; builders
	// fill the table through the API.
	ModeReadOnly Mode = "read_only"
)

// FieldType is the type of a field's values.
type FieldType string

// Field types.
const (
	TypeText     FieldType = "text"
	TypeInteger  FieldType = "integer"
	TypeNumber   FieldType = "number"
	TypeBoolean  FieldType = "boolean"
	TypeDatetime FieldType = "datetime"
)

// Data selects one of a table's two sets of rows.
type Data string

// The two sets of rows of every table.
const (
	// DataDraft is written and read by the builder's debug chats.
	DataDraft Data = "draft"
	// DataOnline is written and read by published channels.
	DataOnline Data = "online"
)

// System columns every table has besides its fields. The model sees id,
// created_at and updated_at and cannot write them; user_id (the end user
// owning a row) is shown to builders only.
const (
	ColumnID        = "id"
	ColumnUserID    = "user_id"
	ColumnCreatedAt = "created_at"
	ColumnUpdatedAt = "updated_at"
)

// DatetimeLayout is how datetime values are written and read.
const DatetimeLayout = "2006-01-02 15:04:05"

// Field is one column a builder defines.
type Field struct {
	// ID is stable for the life of the field: renaming keeps it, so the
	// stored values stay with the field.
	ID          int
	Name        string
	Type        FieldType
	Description string
	Required    bool
}

// Table is a table definition. Its rows live in storage of their own, away
// from the platform's data.
type Table struct {
	ID          int64
	WorkspaceID int64
	CreatorID   int64
	Name        string
	Description string
	Mode        Mode
	Fields      []Field
	// FieldSeq is the last field id handed out; ids are never reused.
	FieldSeq int
	// Revision grows with every change of the definition.
	Revision  int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Field returns the field named name, compared without regard to case.
func (t *Table) Field(name string) (Field, bool) {
	for _, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return Field{}, false
}

// Writable reports whether the model may change rows.
func (t *Table) Writable() bool { return t.Mode != ModeReadOnly }

// Confined reports whether the model only reaches its end user's rows.
func (t *Table) Confined() bool { return t.Mode == ModePerUser }

// Clone returns a deep copy of t.
func (t *Table) Clone() *Table {
	c := *t
	c.Fields = append([]Field(nil), t.Fields...)
	return &c
}

// Scope is whom a SQL statement runs for: which data, and which end user
// owns the rows it reaches in per_user mode (and the rows it inserts).
type Scope struct {
	Data   Data
	UserID string
}

// Size is how much a table holds.
type Size struct {
	DraftRows  int64
	OnlineRows int64
	// Bytes is what the storage reports for both sets of rows, data and
	// indexes; an estimate, 0 when the storage cannot tell.
	Bytes int64
}
