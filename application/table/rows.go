package table

import (
	"context"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// MaxInsertRows bounds the rows one request adds.
const MaxInsertRows = 1000

// RowsQuery selects rows for a builder: which data, filters on fields and
// system columns (id, user_id, created_at, updated_at), a page, newest
// first or not.
type RowsQuery struct {
	Data    table.Data
	Filters []table.Filter
	Page    identity.Page
	Desc    bool
}

// ListRows returns the table with one page of its rows matching q and how
// many match. Filters naming an unknown column or with a value of the
// wrong type are errs.ErrInvalid naming "filter[i]". Access as for Get.
func (s *Service) ListRows(ctx context.Context, p identity.Principal, id int64, q RowsQuery) (*table.Table, []table.Row, int64, error) {
	t, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, nil, 0, err
	}
	for i := range q.Filters {
		if err := t.CheckFilter("filter["+strconv.Itoa(i)+"]", &q.Filters[i]); err != nil {
			return nil, nil, 0, err
		}
	}
	rq := table.RowQuery{Data: q.Data, Filters: q.Filters, Desc: q.Desc, Offset: q.Page.Offset(), Limit: q.Page.Size}
	rows, total, err := s.d.Rows.ListRows(ctx, t, rq)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list rows of table %d: %w", id, err)
	}
	return t, rows, total, nil
}

// NewRow is a row a builder adds: its values by field name and, for
// per_user tables, the end user who owns it.
type NewRow struct {
	UserID string
	Values map[string]any
}

// InsertRows adds rows to the table's data d, all or none, and returns
// their ids. Each row must give every required field; a wrong value is
// errs.ErrInvalid naming "rows[i].field". Access as for Get.
func (s *Service) InsertRows(ctx context.Context, p identity.Principal, id int64, d table.Data, in []NewRow) ([]int64, error) {
	t, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if len(in) == 0 || len(in) > MaxInsertRows {
		return nil, errs.Invalid("rows", "give 1 to %d rows", MaxInsertRows)
	}
	rows := make([]table.Row, len(in))
	for i, r := range in {
		values, err := t.CheckValues("rows["+strconv.Itoa(i)+"]", r.Values, true)
		if err != nil {
			return nil, err
		}
		rows[i] = table.Row{UserID: r.UserID, Values: values}
	}
	return s.d.Rows.InsertRows(ctx, t, d, rows)
}

// UpdateRow changes the values given of one row, and its owner when
// userID is not nil. An unknown row is errs.ErrNotFound; a wrong value
// errs.ErrInvalid naming "values.field". Access as for Get.
func (s *Service) UpdateRow(ctx context.Context, p identity.Principal, id int64, d table.Data, rowID int64, values map[string]any, userID *string) error {
	t, _, err := s.reach(ctx, p, id)
	if err != nil {
		return err
	}
	checked, err := t.CheckValues("values", values, false)
	if err != nil {
		return err
	}
	return s.d.Rows.UpdateRow(ctx, t, d, rowID, checked, userID)
}

// DeleteRow removes one row; an unknown row is errs.ErrNotFound. Access as
// for Get.
func (s *Service) DeleteRow(ctx context.Context, p identity.Principal, id int64, d table.Data, rowID int64) error {
	t, _, err := s.reach(ctx, p, id)
	if err != nil {
		return err
	}
	n, err := s.d.Rows.DeleteRows(ctx, t, d, []int64{rowID})
	if err != nil {
		return fmt.Errorf("delete row %d of table %d: %w", rowID, id, err)
	}
	if n == 0 {
		return errs.NotFound("row", strconv.FormatInt(rowID, 10))
	}
	return nil
}

// RunSQL runs a statement as a bot's SQL tool would, for the end user and
// data of sc: a builder trying statements out. Refused statements are
// errs.ErrInvalid with the message the model would read. Access as for
// Get.
func (s *Service) RunSQL(ctx context.Context, p identity.Principal, id int64, sc table.Scope, sql string) (*table.Result, error) {
	t, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if t.Confined() && sc.UserID == "" {
		return nil, errs.Invalid("user_id", "is required: table %s keeps rows per user", t.Name)
	}
	return s.d.Rows.Run(ctx, t, sc, sql)
}
