package table

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// Limits of a CSV import.
const (
	MaxImportRows = 10_000
	importBatch   = 200
)

// ImportReport says what an import did: the rows added and, per line of
// the file (the header is line 1), why a row was left out.
type ImportReport struct {
	Inserted int
	Errors   []LineError
}

// LineError is a row an import left out.
type LineError struct {
	Line    int
	Message string
}

// ImportCSV adds the rows of a CSV file to the table's data d. The header
// names the columns: fields (ignoring case), user_id (the owner), and
// id, created_at and updated_at, which are ignored so an export can be
// imported again. An empty cell is NULL. Rows with a wrong value are left
// out and reported; the others are added. A header naming an unknown
// column, or a file that is not CSV, is errs.ErrInvalid. Access as for Get.
func (s *Service) ImportCSV(ctx context.Context, p identity.Principal, id int64, d table.Data, r io.Reader) (*ImportReport, error) {
	t, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errs.Invalid("file", "is empty; the first line must name the columns")
	}
	if err != nil {
		return nil, errs.Invalid("file", "is not CSV: %v", err)
	}
	cols, err := importColumns(t, header)
	if err != nil {
		return nil, err
	}
	imp := &importer{s: s, t: t, d: d, report: &ImportReport{}}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if len(imp.rows)+imp.report.Inserted >= MaxImportRows {
			imp.fail(line, fmt.Sprintf("stopped: at most %d rows are imported at once", MaxImportRows))
			break
		}
		if err != nil {
			imp.fail(line, "not CSV: "+err.Error())
			continue
		}
		if err := imp.add(ctx, line, cols, rec); err != nil {
			return nil, err
		}
	}
	if err := imp.flush(ctx); err != nil {
		return nil, err
	}
	return imp.report, nil
}

// importColumns maps the header: a field name, "user_id", or "" for a
// column to ignore.
func importColumns(t *table.Table, header []string) ([]string, error) {
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		switch lower := strings.ToLower(h); {
		case lower == table.ColumnID || lower == table.ColumnCreatedAt || lower == table.ColumnUpdatedAt:
			continue
		case lower == table.ColumnUserID:
			cols[i] = table.ColumnUserID
		default:
			f, ok := t.Field(h)
			if !ok {
				return nil, errs.Invalid("file", "column %d of the header, %q, is not a field of %s", i+1, h, t.Name)
			}
			cols[i] = f.Name
		}
		if seen[cols[i]] {
			return nil, errs.Invalid("file", "the header names %s twice", cols[i])
		}
		seen[cols[i]] = true
	}
	return cols, nil
}

// importer collects valid rows and writes them in batches.
type importer struct {
	s      *Service
	t      *table.Table
	d      table.Data
	rows   []table.Row
	lines  []int
	report *ImportReport
}

func (im *importer) fail(line int, msg string) {
	im.report.Errors = append(im.report.Errors, LineError{Line: line, Message: msg})
}

// add checks one record and queues it, writing a full batch.
func (im *importer) add(ctx context.Context, line int, cols []string, rec []string) error {
	if len(rec) != len(cols) {
		im.fail(line, fmt.Sprintf("has %d cells; the header has %d", len(rec), len(cols)))
		return nil
	}
	row := table.Row{Values: map[string]any{}}
	for i, c := range cols {
		switch {
		case c == "":
		case c == table.ColumnUserID:
			row.UserID = rec[i]
		case rec[i] == "":
			row.Values[c] = nil
		default:
			row.Values[c] = rec[i]
		}
	}
	values, err := im.t.CheckValues("line "+strconv.Itoa(line), row.Values, true)
	if err != nil {
		im.fail(line, err.Error())
		return nil
	}
	row.Values = values
	im.rows, im.lines = append(im.rows, row), append(im.lines, line)
	if len(im.rows) >= importBatch {
		return im.flush(ctx)
	}
	return nil
}

// flush writes the queued rows. When the database refuses a batch, its
// rows are written one by one so the bad ones can be named.
func (im *importer) flush(ctx context.Context) error {
	rows, lines := im.rows, im.lines
	im.rows, im.lines = nil, nil
	if len(rows) == 0 {
		return nil
	}
	_, err := im.s.d.Rows.InsertRows(ctx, im.t, im.d, rows)
	if err == nil {
		im.report.Inserted += len(rows)
		return nil
	}
	if !errors.Is(err, errs.ErrInvalid) {
		return fmt.Errorf("import into table %d: %w", im.t.ID, err)
	}
	for i, r := range rows {
		if _, err := im.s.d.Rows.InsertRows(ctx, im.t, im.d, []table.Row{r}); err != nil {
			if !errors.Is(err, errs.ErrInvalid) {
				return fmt.Errorf("import into table %d: %w", im.t.ID, err)
			}
			im.fail(lines[i], strings.TrimPrefix(err.Error(), "rows[0]: "))
			continue
		}
		im.report.Inserted++
	}
	return nil
}
