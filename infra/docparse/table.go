package docparse

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/xuri/excelize/v2"
)

// parseCSV reads a CSV file as a table, the first row its header. Fields
// may be quoted loosely and rows may be shorter or longer than the
// header (TableRows judges them). Text that is not UTF-8 is read as
// GB18030. Errors: more than MaxRows rows, or a line that cannot be read.
func (p Parser) parseCSV(ctx context.Context, data []byte) (*knowledge.Parsed, error) {
	r := csv.NewReader(strings.NewReader(decodeText(data)))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	t := &tableBuilder{ctx: ctx, maxRows: p.limits().MaxRows, what: "CSV file"}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errs.Invalid("file", "the CSV file cannot be read: %v; check its quotes and save it again", err)
		}
		if err := t.add(rec); err != nil {
			return nil, err
		}
	}
	return t.parsed()
}

// parseXLSX reads the first sheet of an Excel workbook as a table, the
// first row its header, streaming the rows. The archive is checked for a
// zip bomb before excelize opens it.
func (p Parser) parseXLSX(ctx context.Context, data []byte) (*knowledge.Parsed, error) {
	max := p.limits().MaxUnzippedBytes
	if _, err := openZip(data, max, "xlsx"); err != nil {
		return nil, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: max, UnzipXMLSizeLimit: max})
	if err != nil {
		return nil, xlsxError(err, max)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, errs.Invalid("file", "the workbook has no sheet")
	}
	return p.readSheet(ctx, f, sheets[0])
}

func (p Parser) readSheet(ctx context.Context, f *excelize.File, sheet string) (*knowledge.Parsed, error) {
	rows, err := f.Rows(sheet)
	if err != nil {
		return nil, xlsxError(err, p.limits().MaxUnzippedBytes)
	}
	defer rows.Close()
	t := &tableBuilder{ctx: ctx, maxRows: p.limits().MaxRows, what: "sheet " + sheet}
	for rows.Next() {
		cells, err := rows.Columns()
		if err != nil {
			return nil, xlsxError(err, p.limits().MaxUnzippedBytes)
		}
		if err := t.add(cells); err != nil {
			return nil, err
		}
	}
	if err := rows.Error(); err != nil {
		return nil, xlsxError(err, p.limits().MaxUnzippedBytes)
	}
	return t.parsed()
}

// xlsxError says in words why a workbook cannot be read.
func xlsxError(err error, max int64) error {
	var fe *errs.FieldError
	switch {
	case errors.As(err, &fe):
		return err
	case errors.Is(err, excelize.ErrWorkbookFileFormat):
		return errs.Invalid("file", "the file is not an xlsx workbook or is password protected; save it as .xlsx without a password")
	case strings.Contains(err.Error(), "unzip size"):
		return unzipTooLarge("xlsx", max)
	}
	return errs.Invalid("file", "the xlsx file is damaged (%v); save it again and upload it", err)
}

// tableBuilder gathers a header and rows, within the row limit.
type tableBuilder struct {
	ctx     context.Context
	maxRows int
	what    string
	table   *knowledge.TableData
}

// add takes the header first, then rows; blank lines before the header
// are skipped.
func (t *tableBuilder) add(cells []string) error {
	if t.table == nil {
		if blankRow(cells) {
			return nil
		}
		t.table = &knowledge.TableData{Columns: header(cells)}
		return nil
	}
	if len(t.table.Rows) >= t.maxRows {
		return errs.Invalid("file", "the %s has more than %d rows; split it into smaller files", t.what, t.maxRows)
	}
	if len(t.table.Rows)%1000 == 0 {
		if err := t.ctx.Err(); err != nil {
			return fmt.Errorf("docparse: %s row %d: %w", t.what, len(t.table.Rows)+1, err)
		}
	}
	t.table.Rows = append(t.table.Rows, cells)
	return nil
}

func (t *tableBuilder) parsed() (*knowledge.Parsed, error) {
	if t.table == nil {
		return nil, errs.Invalid("file", "the %s is empty; put the column names in the first row and data below", t.what)
	}
	return &knowledge.Parsed{Table: t.table}, nil
}

func blankRow(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// header trims the column names and drops empty ones at the end, which
// spreadsheets and CSV exports often carry.
func header(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.TrimSpace(c)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
