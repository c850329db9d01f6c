package knowledge

import (
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TableRows makes one piece of each row of a table document (table
// knowledge). Piece.Row holds every column's value ("" for a missing
// cell); Piece.Text is the indexed columns as "name: value" lines in the
// table's column order, or every column when cols marks none indexed.
// Rows with no value at all are skipped. Errors are errs.Invalid: a header
// name that is empty or repeated, a column in cols the table does not
// have, a row with values beyond the header, more than
// MaxChunksPerDocument rows, or a row text over MaxChunkChars characters.
func TableRows(t *TableData, cols []Column) ([]Piece, error) {
	if t == nil {
		return nil, errs.Invalid("file", "the document is not a table; cut it with Split")
	}
	if err := checkHeader(t.Columns); err != nil {
		return nil, err
	}
	indexed, err := indexedColumns(t.Columns, cols)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) > MaxChunksPerDocument {
		return nil, errs.Invalid("file", "the table has %d rows, more than %d; split it into smaller files",
			len(t.Rows), MaxChunksPerDocument)
	}
	var out []Piece
	for i, cells := range t.Rows {
		p, err := rowPiece(t.Columns, indexed, cells, i)
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// checkHeader refuses names a row map could not tell apart.
func checkHeader(names []string) error {
	if len(names) == 0 {
		return errs.Invalid("file", "the table has no header row; put the column names in the first row")
	}
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return errs.Invalid("file", "column %d has no name in the header row; name every column", i+1)
		}
		if seen[n] {
			return errs.Invalid("file", "the header names column %q twice; give every column its own name", n)
		}
		seen[n] = true
	}
	return nil
}

// indexedColumns returns which of the table's columns are indexed: those
// cols marks, or all of them when it marks none.
func indexedColumns(names []string, cols []Column) (map[string]bool, error) {
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	indexed := map[string]bool{}
	for _, c := range cols {
		if !have[c.Name] {
			return nil, errs.Invalid("columns", "the table has no column %q; its columns are %s",
				c.Name, strings.Join(names, ", "))
		}
		if c.Indexed {
			indexed[c.Name] = true
		}
	}
	if len(indexed) == 0 {
		return have, nil
	}
	return indexed, nil
}

// rowPiece makes the piece of row i, or nil for a row with no value.
func rowPiece(names []string, indexed map[string]bool, cells []string, i int) (*Piece, error) {
	if err := checkExtraCells(names, cells, i); err != nil {
		return nil, err
	}
	row := make(map[string]string, len(names))
	var text strings.Builder
	empty := true
	for c, name := range names {
		v := ""
		if c < len(cells) {
			v = cells[c]
		}
		row[name] = v
		empty = empty && strings.TrimSpace(v) == ""
		if indexed[name] {
			text.WriteString(name + ": " + v + "\n")
		}
	}
	if empty {
		return nil, nil
	}
	p := &Piece{Text: strings.TrimRight(text.String(), "\n"), Row: row}
	if n := utf8.RuneCountInString(p.Text); n > MaxChunkChars {
		return nil, errs.Invalid("file", "row %d has %d characters in its indexed columns, more than %d; shorten it or index fewer columns",
			i+1, n, MaxChunkChars)
	}
	return p, nil
}

// checkExtraCells refuses values in cells the header does not name;
// empty trailing cells, which spreadsheets often keep, are fine.
func checkExtraCells(names, cells []string, i int) error {
	for c := len(names); c < len(cells); c++ {
		if strings.TrimSpace(cells[c]) != "" {
			return errs.Invalid("file", "row %d has a value in column %d but the header names only %d columns; add the header name",
				i+1, c+1, len(names))
		}
	}
	return nil
}
