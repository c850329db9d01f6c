package knowledge

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// EditedRow returns a copy of row with the values that text, a table
// row's chunk edited by hand, gives in "name: value" lines for the row's
// columns, as TableRows writes them. A line that names no column goes on
// with the value before it (a cell may hold several lines); columns the
// text does not name keep their values. Text that names none of the
// row's columns is errs.ErrInvalid ("text"): the chunk and its row would
// then say different things.
func EditedRow(row map[string]string, text string) (map[string]string, error) {
	names := slices.SortedFunc(maps.Keys(row), func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) // the longest name first: "a b" before "a"
	})
	out := maps.Clone(row)
	current := ""
	for _, line := range strings.Split(text, "\n") {
		if name, value, ok := columnLine(names, line); ok {
			out[name], current = value, name
			continue
		}
		if current != "" {
			out[current] += "\n" + line
		}
	}
	if current == "" {
		return nil, errs.Invalid("text", "is a table row's chunk: write it as \"column: value\" lines naming its columns (%s)",
			strings.Join(slices.Sorted(maps.Keys(row)), ", "))
	}
	return out, nil
}

// columnLine reads "name: value" (or "name:") for one of names.
func columnLine(names []string, line string) (name, value string, ok bool) {
	for _, n := range names {
		rest, found := strings.CutPrefix(line, n+":")
		if found {
			return n, strings.TrimPrefix(rest, " "), true
		}
	}
	return "", "", false
}
