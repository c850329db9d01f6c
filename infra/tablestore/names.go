package tablestore

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
)

// Physical names. A table's rows live in tbl_<id>_draft and
// tbl_<id>_online; a field's values in col_<field id>, which a rename
// keeps; owner_uid holds the end user owning a row.
const (
	tablePrefix = "tbl_"
	ownerColumn = "owner_uid"
	idColumn    = "id"
	createdCol  = "created_at"
	updatedCol  = "updated_at"
)

func physicalTable(id int64, d table.Data) string {
	return tablePrefix + strconv.FormatInt(id, 10) + "_" + string(d)
}

func fieldColumn(id int) string { return "col_" + strconv.Itoa(id) }

// physicalName matches the names above, to find them in error messages.
var physicalName = regexp.MustCompile(`\b(tbl_[0-9]+_(draft|online)|col_[0-9]+|owner_uid)\b`)

// policy is what the model may do on t for sc.
func (s *Store) policy(t *table.Table, sc table.Scope) *sqlguard.Policy {
	cols := make([]sqlguard.Column, 0, len(t.Fields)+3)
	cols = append(cols, sqlguard.Column{Name: table.ColumnID, Physical: idColumn, Type: table.TypeInteger})
	for _, f := range t.Fields {
		cols = append(cols, sqlguard.Column{Name: f.Name, Physical: fieldColumn(f.ID), Type: f.Type, Writable: true, Required: f.Required})
	}
	cols = append(cols,
		sqlguard.Column{Name: table.ColumnCreatedAt, Physical: createdCol, Type: table.TypeDatetime},
		sqlguard.Column{Name: table.ColumnUpdatedAt, Physical: updatedCol, Type: table.TypeDatetime})
	return &sqlguard.Policy{
		Table: t.Name, Physical: physicalTable(t.ID, sc.Data), Columns: cols,
		OwnerColumn: ownerColumn, Owner: sc.UserID, Confine: t.Confined(), ReadOnly: !t.Writable(),
		CreatedColumn: createdCol, UpdatedColumn: updatedCol, Now: s.timestamp(),
		MaxRows: s.maxRows, Dialect: s.dialect,
	}
}

// columnOf maps a field or system column a builder names to its physical
// column.
func columnOf(t *table.Table, name string) (string, bool) {
	switch name {
	case table.ColumnID:
		return idColumn, true
	case table.ColumnUserID:
		return ownerColumn, true
	case table.ColumnCreatedAt:
		return createdCol, true
	case table.ColumnUpdatedAt:
		return updatedCol, true
	}
	if f, ok := t.Field(name); ok {
		return fieldColumn(f.ID), true
	}
	return "", false
}

// logicalText replaces the physical names in a database message with the
// names the caller knows.
func logicalText(t *table.Table, msg string) string {
	return physicalName.ReplaceAllStringFunc(msg, func(m string) string {
		switch {
		case strings.HasPrefix(m, tablePrefix):
			return t.Name
		case m == ownerColumn:
			return "the row's owner"
		}
		id, _ := strconv.Atoi(strings.TrimPrefix(m, "col_"))
		for _, f := range t.Fields {
			if f.ID == id {
				return f.Name
			}
		}
		return "a dropped field"
	})
}

// quote quotes a physical name, which only ever holds letters, digits
// and _.
func quote(name string) string { return "`" + name + "`" }
