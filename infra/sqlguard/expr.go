package sqlguard

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// place is where an expression stands, which decides what it may name.
type place int

const (
	inWhere  place = iota // WHERE, SET values: columns only
	inOutput              // GROUP BY, HAVING, ORDER BY: also select aliases
	inValues              // INSERT values: no columns at all
)

// expr checks an expression and rewrites it in place: columns renamed,
// literals bound, functions translated for the dialect. Every kind of node
// it does not list is refused.
func (rw *rewriter) expr(e ast.ExprNode, at place) (ast.ExprNode, error) {
	if e == nil {
		return nil, nil
	}
	if _, err := rw.checkSize(e, at); err != nil {
		return nil, err
	}
	v := &checker{rw: rw, at: at}
	out, _ := e.Accept(v)
	if v.err != nil {
		return nil, v.err
	}
	return out.(ast.ExprNode), nil
}

type checker struct {
	rw  *rewriter
	at  place
	err error
}

// Enter refuses a node that is not allowed and renames columns.
func (c *checker) Enter(n ast.Node) (ast.Node, bool) {
	if c.err != nil {
		return n, true
	}
	if c.rw.nodes++; c.rw.nodes > MaxNodes {
		c.err = refuse("the statement is too complex (over %d expression nodes)", MaxNodes)
		return n, true
	}
	switch x := n.(type) {
	case ast.ParamMarkerExpr:
		c.err = refuse("placeholders (?) are not allowed; write the values into the statement")
	case *driver.ValueExpr, *boundValue:
	case *ast.ColumnNameExpr:
		c.err = c.columnRef(x)
		return n, true
	case *ast.BinaryOperationExpr, *ast.UnaryOperationExpr, *ast.ParenthesesExpr, *ast.BetweenExpr,
		*ast.IsNullExpr, *ast.IsTruthExpr, *ast.CaseExpr, *ast.WhenClause, *ast.TimeUnitExpr, *ast.TrimDirectionExpr:
	case *ast.PatternInExpr:
		if x.Sel != nil {
			c.err = refuse("subqueries are not allowed; list the values: IN (1, 2, 3)")
		}
	case *ast.PatternLikeOrIlikeExpr:
		if !x.IsLike {
			c.err = refuse("ILIKE is not MySQL; use LIKE")
		} else {
			c.err = checkLike(x)
		}
	case *ast.FuncCallExpr:
		c.err = c.rw.checkFunc(x)
	case *ast.AggregateFuncExpr:
		c.err = checkAggregate(x)
	case *ast.FuncCastExpr:
	case *ast.PositionExpr:
		if c.at != inOutput || x.P == nil && x.N <= 0 {
			c.err = refuse("a column position is allowed in ORDER BY and GROUP BY only")
		}
	default:
		c.err = refuse("%s is not allowed", describe(n))
	}
	return n, c.err != nil
}

// Leave binds literals and translates functions for the dialect.
func (c *checker) Leave(n ast.Node) (ast.Node, bool) {
	if c.err != nil {
		return n, false
	}
	switch x := n.(type) {
	case *driver.ValueExpr:
		v, err := literal(x)
		if err != nil {
			c.err = err
			return n, false
		}
		return c.rw.bind(v), true
	case *ast.FuncCallExpr:
		out, err := c.rw.translate(x)
		if err != nil {
			c.err = err
			return n, false
		}
		return out, true
	}
	return n, true
}

func (c *checker) columnRef(x *ast.ColumnNameExpr) error {
	if c.at == inValues {
		return refuse("INSERT values cannot name columns (%s); write the values", x.Name.Name.O)
	}
	_, err := c.rw.column(x.Name, c.at == inOutput)
	return err
}

// aggregates are the aggregate functions allowed.
var aggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true}

func checkAggregate(x *ast.AggregateFuncExpr) error {
	name := strings.ToLower(x.F)
	if !aggregates[name] {
		return refuse("aggregate %s is not allowed; use COUNT, SUM, AVG, MIN or MAX", strings.ToUpper(x.F))
	}
	if x.Order != nil {
		return refuse("ORDER BY inside an aggregate is not allowed")
	}
	return nil
}

// describe names a construct for an error message.
func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		return "a subquery (query only the table itself)"
	case *ast.VariableExpr:
		return "a variable (@name or @@name)"
	case *ast.DefaultExpr:
		return "DEFAULT (leave the column out instead)"
	case *ast.RowExpr:
		return "a row value such as (a, b)"
	case *ast.ValuesExpr:
		return "VALUES()"
	case *ast.PatternRegexpExpr:
		return "REGEXP (use LIKE)"
	case *ast.MatchAgainst:
		return "MATCH ... AGAINST (use LIKE)"
	case *ast.WindowFuncExpr:
		return "a window function"
	case *ast.SetCollationExpr:
		return "COLLATE"
	case *ast.TableNameExpr:
		return "a table name in an expression"
	}
	name := fmt.Sprintf("%T", n)
	return strings.TrimPrefix(strings.TrimPrefix(name, "*ast."), "*test_driver.")
}
