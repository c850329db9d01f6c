package knowledge

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestTableRows(t *testing.T) {
	table := &TableData{
		Columns: []string{"名称", "price", "note"},
		Rows: [][]string{
			{"苹果", "3", "红色"},
			{"", "", ""},
			{"pear", "2"},
			{"plum", "5", "", ""},
		},
	}
	tests := []struct {
		name string
		cols []Column
		want []Piece
	}{
		{"every column indexed when none is marked", nil, []Piece{
			{Text: "名称: 苹果\nprice: 3\nnote: 红色", Row: map[string]string{"名称": "苹果", "price": "3", "note": "红色"}},
			{Text: "名称: pear\nprice: 2\nnote: ", Row: map[string]string{"名称": "pear", "price": "2", "note": ""}},
			{Text: "名称: plum\nprice: 5\nnote: ", Row: map[string]string{"名称": "plum", "price": "5", "note": ""}},
		}},
		{"only indexed columns in the text, in table order",
			[]Column{{Name: "note", Indexed: true}, {Name: "名称", Indexed: true}, {Name: "price"}}, []Piece{
				{Text: "名称: 苹果\nnote: 红色", Row: map[string]string{"名称": "苹果", "price": "3", "note": "红色"}},
				{Text: "名称: pear\nnote: ", Row: map[string]string{"名称": "pear", "price": "2", "note": ""}},
				{Text: "名称: plum\nnote: ", Row: map[string]string{"名称": "plum", "price": "5", "note": ""}},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TableRows(table, tt.cols)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
		})
	}
}

func TestTableRowsRefuses(t *testing.T) {
	manyRows := make([][]string, MaxChunksPerDocument+1)
	for i := range manyRows {
		manyRows[i] = []string{"x"}
	}
	tests := []struct {
		name  string
		table *TableData
		cols  []Column
		field string
		says  string
	}{
		{"not a table", nil, nil, "file", "Split"},
		{"no header", &TableData{}, nil, "file", "no header row"},
		{"empty header name", &TableData{Columns: []string{"a", " "}}, nil, "file", "column 2 has no name"},
		{"duplicate header name", &TableData{Columns: []string{"名称", "名称"}}, nil, "file", `"名称" twice`},
		{"unknown column", &TableData{Columns: []string{"a", "b"}}, []Column{{Name: "c", Indexed: true}}, "columns", `no column "c"; its columns are a, b`},
		{"value beyond the header", &TableData{Columns: []string{"a"}, Rows: [][]string{{"1", "2"}}}, nil, "file", "row 1 has a value in column 2"},
		{"too many rows", &TableData{Columns: []string{"a"}, Rows: manyRows}, nil, "file", "more than 20000"},
		{"row too long", &TableData{Columns: []string{"a"}, Rows: [][]string{{strings.Repeat("字", MaxChunkChars)}}}, nil, "file", "row 1 has"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TableRows(tt.table, tt.cols)
			var fe *errs.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("TableRows error = %v, want one on %s saying %q", err, tt.field, tt.says)
			}
		})
	}
}
