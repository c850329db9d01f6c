package tablestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
)

// Run checks and runs one statement the model wrote on t, for sc: the
// data and end user it acts for. A statement the guard refuses, or one
// the database rejects (a wrong value, a type error), fails with an error
// matching errs.ErrInvalid whose text names only logical names; running
// past the time limit is errs.ErrInvalid too, asking for a narrower
// statement. Other failures are the database's.
func (s *Store) Run(ctx context.Context, t *table.Table, sc table.Scope, sql string) (*table.Result, error) {
	st, err := s.guard.Rewrite(sql, s.policy(t, sc))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, err := s.runOnConn(ctx, st, s.timeLimited(st))
	if err != nil {
		return nil, s.runError(ctx, t, err)
	}
	return res, nil
}

// timeLimited makes the server stop the statement at the time limit too:
// the client giving up does not stop a query on MySQL.
func (s *Store) timeLimited(st *sqlguard.Statement) string {
	switch {
	case s.dialect != sqlguard.MySQL:
		return st.SQL
	case s.mariadb:
		return "SET STATEMENT max_statement_time=" + strconv.FormatFloat(s.timeout.Seconds(), 'f', 3, 64) + " FOR " + st.SQL
	case st.Kind == sqlguard.Select:
		return "SELECT /*+ MAX_EXECUTION_TIME(" + strconv.FormatInt(s.timeout.Milliseconds(), 10) + ") */" + strings.TrimPrefix(st.SQL, "SELECT")
	}
	return st.SQL
}

func (s *Store) query(ctx context.Context, q querier, st *sqlguard.Statement, text string) (*table.Result, error) {
	rows, err := q.QueryContext(ctx, text, st.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	dbTypes, err := computedTypes(rows, st.Columns)
	if err != nil {
		return nil, err
	}
	res := &table.Result{Columns: make([]string, len(st.Columns))}
	for i, c := range st.Columns {
		res.Columns[i] = c.Name
	}
	raw := make([]any, len(st.Columns))
	ptrs := make([]any, len(raw))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if len(res.Rows) == st.MaxRows {
			res.Truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(raw))
		for i, v := range raw {
			row[i] = outValue(st.Columns[i].Type, dbTypes[i], v)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, rows.Err()
}

// computedTypes returns the database's type names of the columns that are
// not plain fields, which are shown by their field's type; asking the
// driver costs, so only when there are some.
func computedTypes(rows *sql.Rows, cols []sqlguard.OutColumn) ([]string, error) {
	out := make([]string, len(cols))
	for _, c := range cols {
		if c.Type != "" {
			continue
		}
		types, err := rows.ColumnTypes()
		if err != nil {
			return nil, err
		}
		for j, ct := range types {
			out[j] = ct.DatabaseTypeName()
		}
		break
	}
	return out, nil
}

func (s *Store) exec(ctx context.Context, q querier, st *sqlguard.Statement, text string) (*table.Result, error) {
	r, err := q.ExecContext(ctx, text, st.Args...)
	if err != nil {
		return nil, err
	}
	res := &table.Result{Write: true}
	if res.Affected, err = r.RowsAffected(); err != nil {
		return nil, err
	}
	if st.Kind == sqlguard.Insert && res.Affected > 0 {
		id, err := r.LastInsertId()
		if err != nil {
			return nil, err
		}
		if s.dialect == sqlguard.SQLite { // SQLite names the last row, MySQL the first
			id -= res.Affected - 1
		}
		res.InsertID = id
	}
	return res, nil
}

// runError turns a failure of the model's statement into what it can act
// on, in logical names.
func (s *Store) runError(ctx context.Context, t *table.Table, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err) {
		return errs.New(errs.ErrInvalid, "the statement ran longer than %s and was stopped; narrow it with WHERE or LIMIT", s.timeout)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if msg, ok := statementFault(err); ok {
		return errs.New(errs.ErrInvalid, "the database refused the statement: %s", logicalText(t, msg))
	}
	if errors.Is(err, sql.ErrConnDone) || isBusy(err) {
		return errs.New(errs.ErrUnavailable, "the table is busy; try again in a moment")
	}
	return fmt.Errorf("tablestore: run on table %d: %w", t.ID, err)
}
