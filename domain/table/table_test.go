package table_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestSetFields(t *testing.T) {
	tb := &table.Table{Name: "t", Mode: table.ModeShared}
	added, dropped, err := tb.SetFields([]table.FieldSpec{{Name: "a", Type: table.TypeText}, {Name: "b", Type: table.TypeInteger}})
	if err != nil || len(added) != 2 || len(dropped) != 0 || tb.FieldSeq != 2 {
		t.Fatalf("first SetFields = %v, %v, %v (seq %d)", added, dropped, err, tb.FieldSeq)
	}
	added, dropped, err = tb.SetFields([]table.FieldSpec{{ID: 2, Name: "bee"}, {Name: "c", Type: table.TypeBoolean}})
	if err != nil {
		t.Fatal(err)
	}
	want := []table.Field{{ID: 2, Name: "bee", Type: table.TypeInteger}, {ID: 3, Name: "c", Type: table.TypeBoolean}}
	if diff := cmp.Diff(want, tb.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if len(added) != 1 || added[0].ID != 3 || len(dropped) != 1 || dropped[0].Name != "a" {
		t.Errorf("added %v, dropped %v", added, dropped)
	}
	before := tb.Clone()
	_, _, err = tb.SetFields([]table.FieldSpec{{ID: 1, Name: "a"}})
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "fields[0].id") {
		t.Errorf("a dropped id = %v", err)
	}
	if diff := cmp.Diff(before, tb); diff != "" {
		t.Errorf("a refused change changed the table:\n%s", diff)
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		typ  table.FieldType
		in   any
		want any
		bad  bool
	}{
		{table.TypeText, "x", "x", false},
		{table.TypeText, 1.5, "1.5", false},
		{table.TypeInteger, "42", int64(42), false},
		{table.TypeInteger, 4.0, int64(4), false},
		{table.TypeInteger, 4.5, nil, true},
		{table.TypeNumber, "2.5", 2.5, false},
		{table.TypeNumber, "NaN", nil, true},
		{table.TypeBoolean, "yes", true, false},
		{table.TypeBoolean, int64(0), false, false},
		{table.TypeBoolean, "maybe", nil, true},
		{table.TypeDatetime, "2026-01-02T03:04:05+02:00", "2026-01-02 01:04:05", false},
		{table.TypeDatetime, "2026-01-02", "2026-01-02 00:00:00", false},
		{table.TypeDatetime, "soon", nil, true},
		{table.TypeText, nil, nil, false},
	}
	for _, c := range cases {
		got, err := c.typ.Normalize(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("%s.Normalize(%#v) = %#v, %v", c.typ, c.in, got, err)
		}
	}
}

func TestCheckFilter(t *testing.T) {
	tb := &table.Table{Name: "t", Fields: []table.Field{{ID: 1, Name: "qty", Type: table.TypeInteger}}}
	f := table.Filter{Field: "QTY", Op: table.OpGe, Value: "3"}
	if err := tb.CheckFilter("filter[0]", &f); err != nil || f.Value != int64(3) {
		t.Errorf("CheckFilter = %v, value %#v", err, f.Value)
	}
	for _, bad := range []table.Filter{
		{Field: "qty", Op: table.OpContains, Value: "3"},
		{Field: "qty", Op: "like", Value: "3"},
		{Field: "nope", Op: table.OpEq, Value: "3"},
		{Field: "qty", Op: table.OpEq},
	} {
		if err := tb.CheckFilter("filter[0]", &bad); !errors.Is(err, errs.ErrInvalid) {
			t.Errorf("CheckFilter(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
}
