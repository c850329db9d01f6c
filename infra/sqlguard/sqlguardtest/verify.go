package sqlguardtest

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/pergola-ai/pergola/infra/sqlguard"
)

// functions are the functions a rewritten statement may call: the MySQL
// ones the guard allows and what it writes them as on SQLite.
var functions = []string{
	"lower", "upper", "length", "substr", "substring", "trim", "ltrim", "rtrim", "replace", "instr", "coalesce",
	"ifnull", "nullif", "if", "iif", "abs", "round", "ceil", "ceiling", "floor", "mod", "greatest", "least", "max",
	"min", "now", "current_timestamp", "localtime", "localtimestamp", "utc_timestamp", "curdate", "current_date",
	"utc_date", "date", "datediff", "year", "month", "day", "dayofmonth", "hour", "minute", "second", "date_add",
	"adddate", "date_sub", "subdate", "concat", "printf", "datetime", "strftime", "julianday", "lcase", "ucase",
	"char_length", "character_length", "left", "right",
}

var alias = regexp.MustCompile(`^a[0-9]+$`)

// Verify re-parses a rewritten statement and checks, independently of how
// the guard works, that it touches nothing but p's physical table and,
// when p confines, only rows owned by p.Owner; that a read-only policy
// only reads; and that its arguments match its placeholders.
func Verify(st *sqlguard.Statement, p *sqlguard.Policy) error {
	stmts, _, err := parser.New().Parse(st.SQL, "", "")
	if err != nil {
		return fmt.Errorf("the rewritten SQL does not parse: %v", err)
	}
	if len(stmts) != 1 {
		return fmt.Errorf("the rewritten SQL has %d statements", len(stmts))
	}
	v := &verifier{p: p}
	stmts[0].Accept(v)
	if v.err != nil {
		return v.err
	}
	if len(v.params) != len(st.Args) {
		return fmt.Errorf("%d placeholders but %d arguments", len(v.params), len(st.Args))
	}
	slices.SortFunc(v.params, func(a, b ast.ParamMarkerExpr) int { return offset(a) - offset(b) })
	v.args = st.Args
	return v.statement(stmts[0])
}

func offset(m ast.ParamMarkerExpr) int { return m.(*driver.ParamMarkerExpr).Offset }

type verifier struct {
	p       *sqlguard.Policy
	err     error
	params  []ast.ParamMarkerExpr
	args    []any
	selects int
}

func (v *verifier) fail(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf(format, args...)
	}
}

// Enter checks every node on its own.
func (v *verifier) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.TableName:
		if x.Schema.L != "" || x.Name.O != v.p.Physical {
			v.fail("touches table %s.%s", x.Schema.O, x.Name.O)
		}
	case *ast.ColumnName:
		if x.Schema.L != "" || x.Table.L != "" || !v.known(x.Name.O) {
			v.fail("names column %s.%s.%s", x.Schema.O, x.Table.O, x.Name.O)
		}
	case ast.ParamMarkerExpr:
		v.params = append(v.params, x)
	case *ast.SelectStmt:
		if v.selects++; v.selects > 1 || x.With != nil || x.SelectIntoOpt != nil || x.LockInfo != nil && x.LockInfo.LockType != ast.SelectLockNone {
			v.fail("has a nested SELECT, WITH, INTO or a lock")
		}
	case *ast.SelectField:
		if x.WildCard != nil || !alias.MatchString(x.AsName.O) {
			v.fail("has a select field without a generated alias")
		}
	case *ast.Join:
		if x.Right != nil {
			v.fail("joins")
		}
	case *ast.TableSource:
		if _, ok := x.Source.(*ast.TableName); !ok {
			v.fail("reads a derived table")
		}
	case *ast.FuncCallExpr:
		if x.Schema.L != "" || !slices.Contains(functions, x.FnName.L) {
			v.fail("calls %s", x.FnName.O)
		}
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr, *ast.SetOprStmt, *ast.VariableExpr,
		*ast.WindowFuncExpr, *ast.TableOptimizerHint:
		v.fail("has a %T", n)
	}
	return n, v.err != nil
}

// Leave is part of ast.Visitor.
func (v *verifier) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// known reports whether a physical column or generated alias may appear.
func (v *verifier) known(name string) bool {
	if alias.MatchString(name) {
		return true
	}
	for _, c := range v.p.Columns {
		if c.Physical == name {
			return true
		}
	}
	return name != "" && (name == v.p.OwnerColumn || name == v.p.CreatedColumn || name == v.p.UpdatedColumn)
}

// statement checks the whole statement: its kind, what it writes, and
// the owner predicate or value.
func (v *verifier) statement(n ast.StmtNode) error {
	_, isSelect := n.(*ast.SelectStmt)
	if v.p.ReadOnly && !isSelect {
		return fmt.Errorf("a read-only policy let a %T through", n)
	}
	switch s := n.(type) {
	case *ast.SelectStmt:
		return v.selectLimit(s)
	case *ast.InsertStmt:
		return v.insert(s)
	case *ast.UpdateStmt:
		for _, a := range s.List {
			if !v.writable(a.Column.Name.O) && a.Column.Name.O != v.p.UpdatedColumn {
				return fmt.Errorf("UPDATE sets %s", a.Column.Name.O)
			}
		}
		return v.confined(s.Where)
	case *ast.DeleteStmt:
		return v.confined(s.Where)
	}
	return fmt.Errorf("a %T was let through", n)
}

func (v *verifier) selectLimit(s *ast.SelectStmt) error {
	max := v.p.MaxRows
	if max <= 0 {
		max = sqlguard.DefaultRows
	}
	if s.Limit == nil {
		return fmt.Errorf("SELECT without LIMIT")
	}
	c, ok := s.Limit.Count.(*driver.ValueExpr)
	if !ok || toInt(c.GetValue()) > int64(max)+1 {
		return fmt.Errorf("SELECT with LIMIT %v over the cap %d", s.Limit.Count, max)
	}
	return v.confined(s.Where)
}

func toInt(x any) int64 {
	switch n := x.(type) {
	case int64:
		return n
	case uint64:
		return int64(n)
	}
	return 1 << 62
}

func (v *verifier) writable(name string) bool {
	for _, c := range v.p.Columns {
		if c.Physical == name {
			return c.Writable
		}
	}
	return false
}

// insert checks that each row sets the owner, from a placeholder bound to
// the caller, and writes nothing but writable columns and stamps.
func (v *verifier) insert(s *ast.InsertStmt) error {
	if s.Select != nil || len(s.OnDuplicate) > 0 || s.IsReplace {
		return fmt.Errorf("INSERT with SELECT, ON DUPLICATE KEY or REPLACE")
	}
	owner := -1
	for i, c := range s.Columns {
		name := c.Name.O
		switch {
		case name == v.p.OwnerColumn && owner < 0:
			owner = i
		case name == v.p.CreatedColumn || name == v.p.UpdatedColumn || v.writable(name):
		default:
			return fmt.Errorf("INSERT writes %s", name)
		}
	}
	if v.p.OwnerColumn == "" {
		return nil
	}
	if owner < 0 {
		return fmt.Errorf("INSERT does not set the owner")
	}
	for _, row := range s.Lists {
		if !v.isOwner(row[owner]) {
			return fmt.Errorf("INSERT sets the owner to something else than the caller")
		}
	}
	return nil
}

// confined checks that where is "owner = ?" or "owner = ? AND ...", with
// the caller bound, when the policy confines.
func (v *verifier) confined(where ast.ExprNode) error {
	if !v.p.Confine {
		return nil
	}
	if and, ok := where.(*ast.BinaryOperationExpr); ok && and.Op == opcode.LogicAnd {
		where = and.L
	}
	eq, ok := where.(*ast.BinaryOperationExpr)
	if ok && eq.Op == opcode.EQ {
		if col, ok := eq.L.(*ast.ColumnNameExpr); ok && col.Name.Name.O == v.p.OwnerColumn && v.isOwner(eq.R) {
			return nil
		}
	}
	return fmt.Errorf("the statement is not confined to the caller's rows")
}

// isOwner reports whether e is a placeholder bound to the caller.
func (v *verifier) isOwner(e ast.ExprNode) bool {
	m, ok := e.(ast.ParamMarkerExpr)
	if !ok {
		return false
	}
	i := slices.Index(v.params, m)
	return i >= 0 && v.args[i] == any(v.p.Owner)
}
