package sqlguard

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// rewriter rewrites one statement. Its methods check a part of the parsed
// statement, rename what it names in place, and return the part to put in
// the statement that is rebuilt.
type rewriter struct {
	p       *Policy
	args    []any
	alias   string               // the table's alias in the statement, lower case
	outputs map[string]ast.CIStr // select aliases (lower case) -> generated alias
	// outputBytes bounds the value of each select alias (lower case).
	outputBytes map[string]int64
	columns     map[string]*Column // logical names (lower case)
	nodes       int
	work        int64 // see MaxWork
}

func newRewriter(p *Policy) *rewriter {
	rw := &rewriter{p: p, columns: make(map[string]*Column, len(p.Columns))}
	for i := range p.Columns {
		rw.columns[strings.ToLower(p.Columns[i].Name)] = &p.Columns[i]
	}
	return rw
}

// statement dispatches on the kind of statement.
func (rw *rewriter) statement(n ast.StmtNode) (*Statement, error) {
	var (
		out *Statement
		err error
	)
	switch s := n.(type) {
	case *ast.SelectStmt:
		out, err = rw.selectStmt(s)
	case *ast.InsertStmt:
		out, err = rw.writable("INSERT", func() (*Statement, error) { return rw.insertStmt(s) })
	case *ast.UpdateStmt:
		out, err = rw.writable("UPDATE", func() (*Statement, error) { return rw.updateStmt(s) })
	case *ast.DeleteStmt:
		out, err = rw.writable("DELETE", func() (*Statement, error) { return rw.deleteStmt(s) })
	case *ast.SetOprStmt:
		return nil, refuse("UNION, INTERSECT and EXCEPT are not allowed; query %s alone", rw.p.Table)
	default:
		return nil, refuse("only SELECT, INSERT, UPDATE and DELETE on %s are allowed", rw.p.Table)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (rw *rewriter) writable(verb string, run func() (*Statement, error)) (*Statement, error) {
	if rw.p.ReadOnly {
		return nil, refuse("%s is read-only: %s is not allowed, only SELECT", rw.p.Table, verb)
	}
	return run()
}

// tableRef checks the table reference of a statement: the bound table,
// by its logical name, once, with an optional alias.
func (rw *rewriter) tableRef(refs *ast.TableRefsClause) error {
	if refs == nil || refs.TableRefs == nil {
		return refuse("name the table: FROM %s", rw.p.Table)
	}
	j := refs.TableRefs
	if j.Right != nil {
		return refuse("joins are not allowed: use only %s, once", rw.p.Table)
	}
	ts, ok := j.Left.(*ast.TableSource)
	if !ok {
		return refuse("joins are not allowed: use only %s, once", rw.p.Table)
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return refuse("subqueries are not allowed: read %s directly", rw.p.Table)
	}
	if err := rw.tableName(tn); err != nil {
		return err
	}
	if len(ts.ColumnNames) > 0 || ts.Lateral {
		return refuse("column aliases on the table are not allowed")
	}
	rw.alias = ts.AsName.L
	return nil
}

// tableName checks one table name.
func (rw *rewriter) tableName(tn *ast.TableName) error {
	if tn.Schema.L != "" {
		return refuse("only table %s can be used; do not name a database (%s.%s)", rw.p.Table, tn.Schema.O, tn.Name.O)
	}
	if !strings.EqualFold(tn.Name.O, rw.p.Table) {
		return refuse("only table %s can be used, not %q", rw.p.Table, tn.Name.O)
	}
	if len(tn.IndexHints) > 0 || len(tn.PartitionNames) > 0 || tn.TableSample != nil || tn.AsOf != nil {
		return refuse("index hints, partitions, TABLESAMPLE and AS OF are not allowed")
	}
	return nil
}

// physicalRefs is the table reference of the rewritten statement.
func (rw *rewriter) physicalRefs() *ast.TableRefsClause {
	return &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: &ast.TableName{Name: ast.NewCIStr(rw.p.Physical)}}}}
}

// column renames a column reference to its physical column. With
// outputs, a name that is an alias of the select list is taken as that.
func (rw *rewriter) column(cn *ast.ColumnName, outputs bool) (*Column, error) {
	if cn.Schema.L != "" {
		return nil, refuse("only table %s can be used; do not name a database (%s.%s.%s)", rw.p.Table, cn.Schema.O, cn.Table.O, cn.Name.O)
	}
	if cn.Table.L != "" && cn.Table.L != rw.alias && !strings.EqualFold(cn.Table.O, rw.p.Table) {
		return nil, refuse("unknown table %q in %s.%s: only %s can be used", cn.Table.O, cn.Table.O, cn.Name.O, rw.p.Table)
	}
	if outputs && cn.Table.L == "" {
		if a, ok := rw.outputs[cn.Name.L]; ok {
			cn.Name = a
			return nil, nil
		}
	}
	col, ok := rw.columns[cn.Name.L]
	if !ok {
		return nil, refuse("unknown column %q; the columns of %s are: %s", cn.Name.O, rw.p.Table, rw.columnList())
	}
	cn.Table, cn.Schema, cn.Name = ast.CIStr{}, ast.CIStr{}, ast.NewCIStr(col.Physical)
	return col, nil
}

func (rw *rewriter) columnList() string {
	names := make([]string, len(rw.p.Columns))
	for i, c := range rw.p.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// confine adds the owner predicate in front of where, as a parameter:
// owner = ? AND (where).
func (rw *rewriter) confine(where ast.ExprNode) ast.ExprNode {
	if !rw.p.Confine {
		return where
	}
	pred := &ast.BinaryOperationExpr{Op: opcode.EQ,
		L: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(rw.p.OwnerColumn)}},
		R: rw.bind(rw.p.Owner)}
	if where == nil {
		return pred
	}
	return &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: pred, R: &ast.ParenthesesExpr{Expr: where}}
}

// physicalColumn names a physical column in a rewritten statement.
func physicalColumn(name string) *ast.ColumnName { return &ast.ColumnName{Name: ast.NewCIStr(name)} }

// finish writes the rebuilt statement as SQL, collecting its arguments.
func (rw *rewriter) finish(kind Kind, n ast.Node) (*Statement, error) {
	rw.args = rw.args[:0]
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &sb)); err != nil {
		return nil, refuse("the statement cannot be written back: %v", err)
	}
	return &Statement{Kind: kind, SQL: sb.String(), Args: append([]any(nil), rw.args...)}, nil
}
