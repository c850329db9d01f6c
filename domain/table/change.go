package table

import (
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
)

// FieldSpec is a field as a builder sends it: ID 0 adds a field; the ID of
// an existing field keeps it, with the name, description and required flag
// given (a rename keeps its values).
type FieldSpec struct {
	ID          int
	Name        string
	Type        FieldType
	Description string
	Required    bool
}

// SetFields makes specs the table's fields: existing fields keep their ids
// (renamed or re-described as given), new ones get fresh ids, and fields
// left out are dropped. It returns the fields added and dropped, so their
// columns can be changed. A field's type cannot change; an unknown id
// fails, naming "fields[i].id". The result is validated.
func (t *Table) SetFields(specs []FieldSpec) (added, dropped []Field, err error) {
	old := map[int]Field{}
	for _, f := range t.Fields {
		old[f.ID] = f
	}
	next := make([]Field, 0, len(specs))
	kept := map[int]bool{}
	seq := t.FieldSeq
	for i, s := range specs {
		at := "fields[" + strconv.Itoa(i) + "]"
		f := Field{ID: s.ID, Name: s.Name, Type: s.Type, Description: s.Description, Required: s.Required}
		if s.ID == 0 {
			seq++
			f.ID = seq
			added = append(added, f)
		} else {
			prev, ok := old[s.ID]
			if !ok || kept[s.ID] {
				return nil, nil, errs.Invalid(at+".id", "no field with id %d in this table (or listed twice); leave the id out to add a field", s.ID)
			}
			if f.Type == "" {
				f.Type = prev.Type
			}
			if f.Type != prev.Type {
				return nil, nil, errs.Invalid(at+".type", "the type of field %q cannot change from %s to %s; add a new field instead", prev.Name, prev.Type, f.Type)
			}
			kept[s.ID] = true
		}
		next = append(next, f)
	}
	if err := validateFields(next); err != nil {
		return nil, nil, err
	}
	for _, f := range t.Fields {
		if !kept[f.ID] {
			dropped = append(dropped, f)
		}
	}
	t.Fields, t.FieldSeq = next, seq
	return added, dropped, nil
}
