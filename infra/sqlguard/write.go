package sqlguard

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

func (rw *rewriter) insertStmt(s *ast.InsertStmt) (*Statement, error) {
	switch {
	case s.IsReplace:
		return nil, refuse("REPLACE is not allowed; use INSERT, or UPDATE for existing rows")
	case s.IgnoreErr || s.Priority != mysql.NoPriority || len(s.TableHints) > 0 || len(s.PartitionNames) > 0:
		return nil, refuse("INSERT options (IGNORE, priorities, hints, partitions) are not allowed")
	case s.Select != nil:
		return nil, refuse("INSERT ... SELECT is not allowed; write the values: INSERT INTO %s (...) VALUES (...)", rw.p.Table)
	case len(s.OnDuplicate) > 0:
		return nil, refuse("ON DUPLICATE KEY UPDATE is not allowed; use UPDATE for existing rows")
	}
	if err := rw.tableRef(s.Table); err != nil {
		return nil, err
	}
	cols, err := rw.insertColumns(s)
	if err != nil {
		return nil, err
	}
	if len(s.Lists) == 0 || len(s.Lists) > MaxInsertRows {
		return nil, refuse("INSERT takes 1 to %d rows of VALUES", MaxInsertRows)
	}
	out := &ast.InsertStmt{Table: rw.physicalRefs(), Columns: physicalNames(cols)}
	out.Columns = append(out.Columns, rw.stampColumns(true)...)
	for i, row := range s.Lists {
		vals, err := rw.insertRow(i, cols, row)
		if err != nil {
			return nil, err
		}
		out.Lists = append(out.Lists, append(vals, rw.stampValues(true)...))
	}
	return rw.finish(Insert, out)
}

// insertColumns returns the columns an INSERT writes: those it lists, or
// every writable column in order when it lists none. INSERT ... SET is
// turned into a column list with one row.
func (rw *rewriter) insertColumns(s *ast.InsertStmt) ([]*Column, error) {
	if s.Setlist {
		return nil, refuse("INSERT ... SET is not allowed; write INSERT INTO %s (a, b) VALUES (1, 2)", rw.p.Table)
	}
	var cols []*Column
	if len(s.Columns) == 0 {
		for i := range rw.p.Columns {
			if rw.p.Columns[i].Writable {
				cols = append(cols, &rw.p.Columns[i])
			}
		}
	}
	seen := map[string]bool{}
	for _, cn := range s.Columns {
		col, err := rw.writeColumn(cn)
		if err != nil {
			return nil, err
		}
		if seen[col.Physical] {
			return nil, refuse("column %s is listed twice", col.Name)
		}
		seen[col.Physical] = true
		cols = append(cols, col)
	}
	for i := range rw.p.Columns {
		if c := &rw.p.Columns[i]; c.Required && !seen[c.Physical] && len(s.Columns) > 0 {
			return nil, refuse("column %s is required; give it a value", c.Name)
		}
	}
	return cols, nil
}

// writeColumn resolves a column an INSERT or UPDATE sets.
func (rw *rewriter) writeColumn(cn *ast.ColumnName) (*Column, error) {
	name := cn.Name.O
	col, err := rw.column(cn, false)
	if err != nil {
		return nil, err
	}
	if !col.Writable {
		return nil, refuse("column %s is set automatically and cannot be written", name)
	}
	return col, nil
}

func (rw *rewriter) insertRow(i int, cols []*Column, row []ast.ExprNode) ([]ast.ExprNode, error) {
	if len(row) != len(cols) {
		return nil, refuse("row %d has %d values for %d columns", i+1, len(row), len(cols))
	}
	out := make([]ast.ExprNode, len(row))
	for j, e := range row {
		if err := requiredValue(cols[j], e); err != nil {
			return nil, err
		}
		if err := rw.storedSize(cols[j], e, inValues); err != nil {
			return nil, err
		}
		v, err := rw.expr(e, inValues)
		if err != nil {
			return nil, err
		}
		out[j] = v
	}
	return out, nil
}

// requiredValue refuses a literal NULL for a required column.
func requiredValue(col *Column, e ast.ExprNode) error {
	if v, ok := e.(*driver.ValueExpr); ok && v.GetValue() == nil && col.Required {
		return refuse("column %s is required and cannot be NULL", col.Name)
	}
	return nil
}

// stampColumns are the columns set on every row written: the owner and
// creation time on INSERT, the update time on both.
func (rw *rewriter) stampColumns(insert bool) []*ast.ColumnName {
	var out []*ast.ColumnName
	if insert && rw.p.OwnerColumn != "" {
		out = append(out, physicalColumn(rw.p.OwnerColumn))
	}
	if insert && rw.p.CreatedColumn != "" {
		out = append(out, physicalColumn(rw.p.CreatedColumn))
	}
	if rw.p.UpdatedColumn != "" {
		out = append(out, physicalColumn(rw.p.UpdatedColumn))
	}
	return out
}

func (rw *rewriter) stampValues(insert bool) []ast.ExprNode {
	var out []ast.ExprNode
	if insert && rw.p.OwnerColumn != "" {
		out = append(out, rw.bind(rw.p.Owner))
	}
	if insert && rw.p.CreatedColumn != "" {
		out = append(out, rw.bind(rw.p.Now))
	}
	if rw.p.UpdatedColumn != "" {
		out = append(out, rw.bind(rw.p.Now))
	}
	return out
}

func physicalNames(cols []*Column) []*ast.ColumnName {
	out := make([]*ast.ColumnName, len(cols))
	for i, c := range cols {
		out[i] = physicalColumn(c.Physical)
	}
	return out
}

func (rw *rewriter) updateStmt(s *ast.UpdateStmt) (*Statement, error) {
	switch {
	case s.MultipleTable || s.With != nil:
		return nil, refuse("UPDATE may change only %s", rw.p.Table)
	case s.Order != nil || s.Limit != nil:
		return nil, refuse("UPDATE does not take ORDER BY or LIMIT here; narrow the WHERE clause (e.g. WHERE id = 3)")
	case s.IgnoreErr || s.Priority != mysql.NoPriority || len(s.TableHints) > 0:
		return nil, refuse("UPDATE options (IGNORE, priorities, hints) are not allowed")
	}
	if err := rw.tableRef(s.TableRefs); err != nil {
		return nil, err
	}
	out := &ast.UpdateStmt{TableRefs: rw.physicalRefs()}
	for _, a := range s.List {
		col, err := rw.writeColumn(a.Column)
		if err != nil {
			return nil, err
		}
		if err := requiredValue(col, a.Expr); err != nil {
			return nil, err
		}
		if err := rw.storedSize(col, a.Expr, inWhere); err != nil {
			return nil, err
		}
		e, err := rw.expr(a.Expr, inWhere)
		if err != nil {
			return nil, err
		}
		out.List = append(out.List, &ast.Assignment{Column: a.Column, Expr: e})
	}
	stamps, values := rw.stampColumns(false), rw.stampValues(false)
	for i, c := range stamps {
		out.List = append(out.List, &ast.Assignment{Column: c, Expr: values[i]})
	}
	where, err := rw.expr(s.Where, inWhere)
	if err != nil {
		return nil, err
	}
	out.Where = rw.confine(where)
	return rw.finish(Update, out)
}

func (rw *rewriter) deleteStmt(s *ast.DeleteStmt) (*Statement, error) {
	switch {
	case s.IsMultiTable || s.Tables != nil || s.With != nil:
		return nil, refuse("DELETE may remove rows of %s only: DELETE FROM %s WHERE ...", rw.p.Table, rw.p.Table)
	case s.Order != nil || s.Limit != nil:
		return nil, refuse("DELETE does not take ORDER BY or LIMIT here; narrow the WHERE clause (e.g. WHERE id = 3)")
	case s.IgnoreErr || s.Quick || s.Priority != mysql.NoPriority || len(s.TableHints) > 0:
		return nil, refuse("DELETE options (IGNORE, QUICK, priorities, hints) are not allowed")
	}
	if err := rw.tableRef(s.TableRefs); err != nil {
		return nil, err
	}
	where, err := rw.expr(s.Where, inWhere)
	if err != nil {
		return nil, err
	}
	out := &ast.DeleteStmt{TableRefs: rw.physicalRefs(), Where: rw.confine(where)}
	return rw.finish(Delete, out)
}
