package knowledge

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestEditedRow(t *testing.T) {
	row := map[string]string{"city": "Lyon", "city code": "69", "mayor": "Grégory", "notes": "old"}
	tests := []struct {
		name, text string
		want       map[string]string
	}{
		{"the indexed columns rewritten", "city: Nantes\nmayor: Johanna",
			map[string]string{"city": "Nantes", "city code": "69", "mayor": "Johanna", "notes": "old"}},
		{"the longer name wins", "city code: 44",
			map[string]string{"city": "Lyon", "city code": "44", "mayor": "Grégory", "notes": "old"}},
		{"a value on several lines", "notes: first\nsecond\nmayor:",
			map[string]string{"city": "Lyon", "city code": "69", "mayor": "", "notes": "first\nsecond"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EditedRow(row, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("row (-want +got):\n%s", d)
			}
		})
	}
	if row["city"] != "Lyon" {
		t.Errorf("the given row was changed: %v", row)
	}
	_, err := EditedRow(row, "Nantes has a new mayor")
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "text" || !strings.Contains(err.Error(), "city, city code, mayor, notes") {
		t.Errorf("text naming no column: err = %v; want one on text listing the columns", err)
	}
}
