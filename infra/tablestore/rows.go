package tablestore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

// ListRows returns the rows of t matching q, and how many match in all
// (ignoring q's paging). Filters must have been checked by
// table.CheckFilter.
func (s *Store) ListRows(ctx context.Context, t *table.Table, q table.RowQuery) ([]table.Row, int64, error) {
	name := quote(physicalTable(t.ID, q.Data))
	where, args, err := filterSQL(t, q.Filters)
	if err != nil {
		return nil, 0, err
	}
	var total int64
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+name+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("tablestore: count rows of table %d: %w", t.ID, err)
	}
	order, cmp := " ORDER BY `id`", ">"
	if q.Desc {
		order, cmp = " ORDER BY `id` DESC", "<"
	}
	if q.AfterID > 0 {
		where, args = and(where, "`id` "+cmp+" ?"), append(args, q.AfterID)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	cols := selectColumns(t)
	query := "SELECT " + strings.Join(cols, ", ") + " FROM " + name + where + order +
		" LIMIT " + strconv.Itoa(limit) + " OFFSET " + strconv.Itoa(max(q.Offset, 0))
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("tablestore: list rows of table %d: %w", t.ID, err)
	}
	defer rows.Close()
	var out []table.Row
	for rows.Next() {
		r, err := scanRow(t, rows, len(cols))
		if err != nil {
			return nil, 0, fmt.Errorf("tablestore: list rows of table %d: %w", t.ID, err)
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

func selectColumns(t *table.Table) []string {
	cols := []string{"`id`", "`owner_uid`", "`created_at`", "`updated_at`"}
	for _, f := range t.Fields {
		cols = append(cols, quote(fieldColumn(f.ID)))
	}
	return cols
}

func scanRow(t *table.Table, rows *sql.Rows, n int) (table.Row, error) {
	raw := make([]any, n)
	ptrs := make([]any, n)
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return table.Row{}, err
	}
	r := table.Row{Values: make(map[string]any, len(t.Fields))}
	r.ID, _ = toInt(rowValue(table.TypeInteger, raw[0]))
	r.UserID, _ = rowValue(table.TypeText, raw[1]).(string)
	r.CreatedAt, r.UpdatedAt = parseTime(raw[2]), parseTime(raw[3])
	for i, f := range t.Fields {
		r.Values[f.Name] = rowValue(f.Type, raw[4+i])
	}
	return r, nil
}

func parseTime(v any) time.Time {
	switch x := v.(type) {
	case time.Time:
		return x.UTC()
	case []byte:
		v = string(x)
	}
	s, _ := v.(string)
	t, _ := time.Parse(table.DatetimeLayout, s)
	return t
}

// filterSQL writes the filters as a WHERE clause with arguments.
func filterSQL(t *table.Table, filters []table.Filter) (string, []any, error) {
	var where string
	var args []any
	for i, f := range filters {
		col, ok := columnOf(t, f.Field)
		if !ok {
			return "", nil, errs.Invalid("filter["+strconv.Itoa(i)+"]", "table %s has no column %q", t.Name, f.Field)
		}
		c := quote(col)
		switch f.Op {
		case table.OpNull:
			where = and(where, c+" IS NULL")
		case table.OpNotNull:
			where = and(where, c+" IS NOT NULL")
		case table.OpContains, table.OpPrefix:
			pattern := escapeLike(fmt.Sprint(f.Value)) + "%"
			if f.Op == table.OpContains {
				pattern = "%" + pattern
			}
			where, args = and(where, c+" LIKE ? ESCAPE '!'"), append(args, pattern)
		default:
			where, args = and(where, c+" "+comparisons[f.Op]+" ?"), append(args, storeValue(f.Value))
		}
	}
	return where, args, nil
}

var comparisons = map[table.Op]string{table.OpEq: "=", table.OpNe: "<>", table.OpLt: "<", table.OpLe: "<=", table.OpGt: ">", table.OpGe: ">="}

func and(where, cond string) string {
	if where == "" {
		return " WHERE " + cond
	}
	return where + " AND " + cond
}

func escapeLike(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

// InsertRows adds rows to t's data d in one transaction and returns their
// ids. Values must have been normalized by table.CheckValues.
func (s *Store) InsertRows(ctx context.Context, t *table.Table, d table.Data, rows []table.Row) ([]int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("tablestore: insert rows: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	now := s.timestamp()
	ids := make([]int64, 0, len(rows))
	for i, r := range rows {
		cols, args := []string{"`owner_uid`", "`created_at`", "`updated_at`"}, []any{r.UserID, now, now}
		for _, f := range t.Fields {
			if v, ok := r.Values[f.Name]; ok {
				cols, args = append(cols, quote(fieldColumn(f.ID))), append(args, storeValue(v))
			}
		}
		res, err := tx.ExecContext(ctx, "INSERT INTO "+quote(physicalTable(t.ID, d))+" ("+strings.Join(cols, ", ")+") VALUES (?"+
			strings.Repeat(", ?", len(cols)-1)+")", args...)
		if err != nil {
			return nil, s.rowError(t, i, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("tablestore: insert rows: %w", err)
		}
		ids = append(ids, id)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("tablestore: insert rows: %w", err)
	}
	return ids, nil
}

// UpdateRow sets values (normalized) of the row id of t's data d, and its
// owner when userID is not nil. An unknown row is errs.ErrNotFound.
func (s *Store) UpdateRow(ctx context.Context, t *table.Table, d table.Data, id int64, values map[string]any, userID *string) error {
	sets, args := []string{"`updated_at` = ?"}, []any{s.timestamp()}
	if userID != nil {
		sets, args = append(sets, "`owner_uid` = ?"), append(args, *userID)
	}
	for _, f := range t.Fields {
		if v, ok := values[f.Name]; ok {
			sets, args = append(sets, quote(fieldColumn(f.ID))+" = ?"), append(args, storeValue(v))
		}
	}
	res, err := s.db.ExecContext(ctx, "UPDATE "+quote(physicalTable(t.ID, d))+" SET "+strings.Join(sets, ", ")+" WHERE `id` = ?", append(args, id)...)
	if err != nil {
		return s.rowError(t, 0, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("tablestore: update row: %w", err)
	} else if n == 0 {
		return errs.NotFound("row", strconv.FormatInt(id, 10))
	}
	return nil
}

// DeleteRows removes the rows ids of t's data d and returns how many there
// were.
func (s *Store) DeleteRows(ctx context.Context, t *table.Table, d table.Data, ids []int64) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	res, err := s.db.ExecContext(ctx, "DELETE FROM "+quote(physicalTable(t.ID, d))+" WHERE `id` IN (?"+strings.Repeat(", ?", len(ids)-1)+")", args...)
	if err != nil {
		return 0, fmt.Errorf("tablestore: delete rows: %w", err)
	}
	return res.RowsAffected()
}

// rowError reports a value the database refused for row i.
func (s *Store) rowError(t *table.Table, i int, err error) error {
	if msg, ok := statementFault(err); ok {
		return errs.Invalid("rows["+strconv.Itoa(i)+"]", "%s", logicalText(t, msg))
	}
	return fmt.Errorf("tablestore: write rows of table %d: %w", t.ID, err)
}
