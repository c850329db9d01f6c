package table

import (
	"encoding/json"

	"github.com/pergola-ai/pergola/domain/table"
)

// readAnswer is what the model reads after a SELECT.
type readAnswer struct {
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	RowCount  int      `json:"row_count"`
	Truncated bool     `json:"truncated,omitempty"`
	Note      string   `json:"note,omitempty"`
}

// writeAnswer is what the model reads after INSERT, UPDATE or DELETE.
type writeAnswer struct {
	AffectedRows int64 `json:"affected_rows"`
	InsertID     int64 `json:"insert_id,omitempty"`
}

// truncatedNote tells the model that a SELECT had more rows.
const truncatedNote = "more rows match than were returned; narrow the WHERE clause, aggregate, or page with LIMIT and OFFSET"

// maxAnswer bounds the answer the model reads, in bytes; rows beyond it
// are left out as if the SELECT had returned fewer.
const maxAnswer = 32 << 10

// formatResult writes a result as compact JSON.
func formatResult(r *table.Result) string {
	if r.Write {
		return marshal(writeAnswer{AffectedRows: r.Affected, InsertID: r.InsertID})
	}
	rows := r.Rows
	if rows == nil {
		rows = [][]any{}
	}
	truncated := r.Truncated
	for {
		a := readAnswer{Columns: r.Columns, Rows: rows, RowCount: len(rows), Truncated: truncated}
		if truncated {
			a.Note = truncatedNote
		}
		out := marshal(a)
		if len(out) <= maxAnswer || len(rows) == 0 {
			return out
		}
		rows, truncated = rows[:len(rows)/2], true
	}
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "error: the result cannot be shown: " + err.Error()
	}
	return string(b)
}
