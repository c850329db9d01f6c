package table

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// exportPage is how many rows an export reads at a time.
const exportPage = 500

// ExportCSV writes every row of the table's data d as CSV, by id: id,
// user_id, the fields, created_at, updated_at. NULL is an empty cell. The
// file can be imported again. Access as for Get; errors after the first
// row has been written can only end the file early.
func (s *Service) ExportCSV(ctx context.Context, p identity.Principal, id int64, d table.Data, w io.Writer) error {
	t, _, err := s.reach(ctx, p, id)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	header := []string{table.ColumnID, table.ColumnUserID}
	for _, f := range t.Fields {
		header = append(header, f.Name)
	}
	if err := cw.Write(append(header, table.ColumnCreatedAt, table.ColumnUpdatedAt)); err != nil {
		return err
	}
	var after int64
	for {
		rows, _, err := s.d.Rows.ListRows(ctx, t, table.RowQuery{Data: d, AfterID: after, Limit: exportPage})
		if err != nil {
			return fmt.Errorf("export table %d: %w", id, err)
		}
		for _, r := range rows {
			if err := cw.Write(csvRecord(t, r)); err != nil {
				return err
			}
			after = r.ID
		}
		if len(rows) < exportPage {
			break
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvRecord(t *table.Table, r table.Row) []string {
	rec := []string{strconv.FormatInt(r.ID, 10), r.UserID}
	for _, f := range t.Fields {
		rec = append(rec, csvCell(r.Values[f.Name]))
	}
	return append(rec, r.CreatedAt.UTC().Format(table.DatetimeLayout), r.UpdatedAt.UTC().Format(table.DatetimeLayout))
}

func csvCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}
