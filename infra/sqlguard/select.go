package sqlguard

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/pergola-ai/pergola/domain/table"
)

// Limits of a SELECT.
const (
	maxOutputs   = 100     // columns of the select list
	maxOffset    = 1 << 31 // OFFSET
	maxHeaderLen = 64      // characters of a computed column's name
)

func (rw *rewriter) selectStmt(s *ast.SelectStmt) (*Statement, error) {
	if err := checkSelectShape(s); err != nil {
		return nil, err
	}
	if s.From == nil {
		return nil, refuse("read from the table: SELECT ... FROM %s", rw.p.Table)
	}
	if err := rw.tableRef(s.From); err != nil {
		return nil, err
	}
	fields, cols, err := rw.fields(s.Fields)
	if err != nil {
		return nil, err
	}
	out := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true},
		Distinct: s.Distinct, From: rw.physicalRefs(), Fields: fields}
	if out.Where, err = rw.expr(s.Where, inWhere); err != nil {
		return nil, err
	}
	out.Where = rw.confine(out.Where)
	if err := rw.grouping(s, out); err != nil {
		return nil, err
	}
	limit, max, err := rw.limit(s.Limit)
	if err != nil {
		return nil, err
	}
	out.Limit = limit
	st, err := rw.finish(Select, out)
	if err != nil {
		return nil, err
	}
	st.Columns, st.MaxRows = cols, max
	return st, nil
}

// checkSelectShape refuses the parts of a SELECT that are never allowed.
func checkSelectShape(s *ast.SelectStmt) error {
	switch {
	case s.Kind != ast.SelectStmtKindSelect:
		return refuse("TABLE and VALUES statements are not allowed; write SELECT")
	case s.With != nil:
		return refuse("WITH (common table expressions) is not allowed")
	case s.SelectIntoOpt != nil:
		return refuse("SELECT ... INTO is not allowed")
	case s.LockInfo != nil && s.LockInfo.LockType != ast.SelectLockNone:
		return refuse("locking clauses (FOR UPDATE, LOCK IN SHARE MODE) are not allowed")
	case len(s.WindowSpecs) > 0:
		return refuse("window functions are not allowed")
	case len(s.TableHints) > 0:
		return refuse("optimizer hints are not allowed")
	case s.SelectStmtOpts != nil && (s.SelectStmtOpts.CalcFoundRows || s.SelectStmtOpts.StraightJoin):
		return refuse("SQL_CALC_FOUND_ROWS and STRAIGHT_JOIN are not allowed")
	}
	return nil
}

// fields rewrites the select list, expanding * into the visible columns
// and giving every column a generated alias, so the result's column names
// never show a physical name. It returns the names the model sees.
func (rw *rewriter) fields(fl *ast.FieldList) (*ast.FieldList, []OutColumn, error) {
	rw.outputs, rw.outputBytes = map[string]ast.CIStr{}, map[string]int64{}
	out := &ast.FieldList{}
	var cols []OutColumn
	var row int64
	add := func(e ast.ExprNode, name string, typ table.FieldType, n int64) ast.CIStr {
		row = min(row+n, huge)
		alias := ast.NewCIStr("a" + strconv.Itoa(len(out.Fields)))
		out.Fields = append(out.Fields, &ast.SelectField{Expr: e, AsName: alias})
		cols = append(cols, OutColumn{Name: name, Type: typ})
		return alias
	}
	for _, f := range fl.Fields {
		if f.WildCard != nil {
			if err := rw.wildcard(f.WildCard); err != nil {
				return nil, nil, err
			}
			for _, c := range rw.p.Columns {
				add(&ast.ColumnNameExpr{Name: physicalColumn(c.Physical)}, c.Name, c.Type, rw.columnBytes(physicalColumn(c.Name), inWhere))
			}
			continue
		}
		n := rw.boundOf(f.Expr, inWhere)
		e, name, typ, err := rw.field(f)
		if err != nil {
			return nil, nil, err
		}
		alias := add(e, name, typ, n)
		if f.AsName.L != "" {
			rw.outputs[f.AsName.L], rw.outputBytes[f.AsName.L] = alias, n
		}
	}
	if len(out.Fields) > maxOutputs {
		return nil, nil, refuse("select at most %d columns", maxOutputs)
	}
	if row > MaxRowBytes {
		return nil, nil, refuse("a row of this SELECT can be up to %s long, over the limit of %s; select fewer columns or cut long text with LEFT(text, 1000)",
			bytesText(row), bytesText(MaxRowBytes))
	}
	return out, cols, nil
}

func (rw *rewriter) wildcard(w *ast.WildCardField) error {
	if w.Schema.L != "" || w.Table.L != "" && w.Table.L != rw.alias && !strings.EqualFold(w.Table.O, rw.p.Table) {
		return refuse("only table %s can be used; write * or %s.*", rw.p.Table, rw.p.Table)
	}
	return nil
}

// field rewrites one select expression and names its result column: the
// alias, the column's name, or the expression as written.
func (rw *rewriter) field(f *ast.SelectField) (ast.ExprNode, string, table.FieldType, error) {
	name := f.AsName.O
	if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
		col, err := rw.column(cn.Name, false)
		if err != nil {
			return nil, "", "", err
		}
		if name == "" {
			name = col.Name
		}
		return cn, name, col.Type, nil
	}
	e, err := rw.expr(f.Expr, inWhere)
	if err != nil {
		return nil, "", "", err
	}
	if name == "" {
		name = strings.TrimSpace(f.Text())
	}
	if r := []rune(name); len(r) > maxHeaderLen {
		name = string(r[:maxHeaderLen]) + "…"
	}
	return e, name, "", nil
}

// grouping rewrites GROUP BY, HAVING and ORDER BY, which may name the
// select list's aliases.
func (rw *rewriter) grouping(s, out *ast.SelectStmt) error {
	if s.GroupBy != nil {
		if s.GroupBy.Rollup {
			return refuse("WITH ROLLUP is not allowed")
		}
		items, err := rw.byItems(s.GroupBy.Items)
		if err != nil {
			return err
		}
		out.GroupBy = &ast.GroupByClause{Items: items}
	}
	if s.Having != nil {
		e, err := rw.expr(s.Having.Expr, inOutput)
		if err != nil {
			return err
		}
		out.Having = &ast.HavingClause{Expr: e}
	}
	if s.OrderBy != nil {
		items, err := rw.byItems(s.OrderBy.Items)
		if err != nil {
			return err
		}
		out.OrderBy = &ast.OrderByClause{Items: items}
	}
	return nil
}

func (rw *rewriter) byItems(items []*ast.ByItem) ([]*ast.ByItem, error) {
	out := make([]*ast.ByItem, len(items))
	for i, it := range items {
		e, err := rw.expr(it.Expr, inOutput)
		if err != nil {
			return nil, err
		}
		out[i] = &ast.ByItem{Expr: e, Desc: it.Desc}
	}
	return out, nil
}

// limit caps the rows: the model's LIMIT when it is within the policy,
// otherwise one row over the cap, to tell that rows were left out.
func (rw *rewriter) limit(l *ast.Limit) (*ast.Limit, int, error) {
	max := rw.p.MaxRows
	if max <= 0 {
		max = DefaultRows
	}
	count := uint64(max) + 1
	out := &ast.Limit{}
	if l != nil {
		n, err := limitValue(l.Count, "LIMIT")
		if err != nil {
			return nil, 0, err
		}
		if n <= uint64(max) {
			count, max = n, int(n)
		}
		if l.Offset != nil {
			o, err := limitValue(l.Offset, "OFFSET")
			if err != nil {
				return nil, 0, err
			}
			out.Offset = ast.NewValueExpr(o, "", "")
		}
	}
	out.Count = ast.NewValueExpr(count, "", "")
	return out, max, nil
}

func limitValue(e ast.ExprNode, what string) (uint64, error) {
	v, ok := e.(*driver.ValueExpr)
	if ok {
		switch n := v.GetValue().(type) {
		case int64:
			if n >= 0 && n <= maxOffset {
				return uint64(n), nil
			}
		case uint64:
			if n <= maxOffset {
				return n, nil
			}
		}
	}
	return 0, refuse("%s takes a whole number from 0 to %d", what, maxOffset)
}
