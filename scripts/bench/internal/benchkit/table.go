package benchkit

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Table prints aligned rows: the first row is the header, underlined.
type Table struct {
	rows [][]string
}

// Row adds a row of cells.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// Print writes the table, numbers and text left-aligned in columns.
func (t *Table) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
		if i == 0 {
			dashes := make([]string, len(r))
			for j, c := range r {
				dashes[j] = strings.Repeat("-", len(c))
			}
			fmt.Fprintln(tw, strings.Join(dashes, "\t"))
		}
	}
	_ = tw.Flush()
}
