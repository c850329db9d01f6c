package table

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/table"
)

func TestFormatResult(t *testing.T) {
	cases := []struct {
		name string
		in   *table.Result
		want string
	}{
		{"write", &table.Result{Write: true, Affected: 2, InsertID: 7}, `{"affected_rows":2,"insert_id":7}`},
		{"update", &table.Result{Write: true}, `{"affected_rows":0}`},
		{"no rows", &table.Result{Columns: []string{"n"}}, `{"columns":["n"],"rows":[],"row_count":0}`},
		{"truncated", &table.Result{Columns: []string{"n"}, Rows: [][]any{{int64(1)}}, Truncated: true},
			`{"columns":["n"],"rows":[[1]],"row_count":1,"truncated":true,"note":"` + truncatedNote + `"}`},
	}
	for _, c := range cases {
		if got := formatResult(c.in); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	big := &table.Result{Columns: []string{"text"}}
	for range 100 {
		big.Rows = append(big.Rows, []any{strings.Repeat("x", 2000)})
	}
	got := formatResult(big)
	if len(got) > maxAnswer || !strings.Contains(got, `"truncated":true`) || !strings.Contains(got, `"row_count":12`) {
		t.Errorf("a 200 KB answer came out as %d bytes: %.200s", len(got), got)
	}
}
