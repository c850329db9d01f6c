package sqlguard

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/types"
)

// fn is an allowed function: how many arguments it takes (max -1: any
// number) and how SQLite writes it (nil: as MySQL does).
type fn struct {
	min, max int
	sqlite   func(rw *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error)
}

// functions are the only functions a statement may call: pure functions
// of their arguments, nothing that reads the server, the session, files
// or time beyond the clock, or that sleeps or locks.
var functions = map[string]fn{
	"lower": {1, 1, nil}, "upper": {1, 1, nil}, "lcase": {1, 1, rename("lower")}, "ucase": {1, 1, rename("upper")},
	"length": {1, 1, nil}, "char_length": {1, 1, rename("length")}, "character_length": {1, 1, rename("length")},
	"concat": {1, -1, concat}, "substring": {2, 3, rename("substr")}, "substr": {2, 3, nil},
	"left": {2, 2, left}, "right": {2, 2, right}, "trim": {1, 3, trim}, "ltrim": {1, 1, nil}, "rtrim": {1, 1, nil},
	"replace": {3, 3, nil}, "instr": {2, 2, nil},
	"coalesce": {1, -1, nil}, "ifnull": {2, 2, nil}, "nullif": {2, 2, nil}, "if": {3, 3, rename("iif")},
	"abs": {1, 1, nil}, "round": {1, 2, nil}, "ceil": {1, 1, nil}, "ceiling": {1, 1, rename("ceil")}, "floor": {1, 1, nil},
	"mod": {2, 2, mod}, "greatest": {2, -1, rename("max")}, "least": {2, -1, rename("min")},
	"now": {0, 1, now}, "current_timestamp": {0, 1, now}, "localtime": {0, 1, now}, "localtimestamp": {0, 1, now},
	"utc_timestamp": {0, 1, now}, "curdate": {0, 0, today}, "current_date": {0, 0, today}, "utc_date": {0, 0, today},
	"date": {1, 1, nil}, "datediff": {2, 2, datediff},
	"year": {1, 1, part("%Y")}, "month": {1, 1, part("%m")}, "day": {1, 1, part("%d")}, "dayofmonth": {1, 1, part("%d")},
	"hour": {1, 1, part("%H")}, "minute": {1, 1, part("%M")}, "second": {1, 1, part("%S")},
	"date_add": {3, 3, interval(1)}, "adddate": {3, 3, interval(1)}, "date_sub": {3, 3, interval(-1)}, "subdate": {3, 3, interval(-1)},
}

// FunctionNames lists the allowed functions, for the tool's description.
func FunctionNames() []string {
	names := make([]string, 0, len(functions)+len(aggregates))
	for n := range functions {
		names = append(names, strings.ToUpper(n))
	}
	for n := range aggregates {
		names = append(names, strings.ToUpper(n))
	}
	slices.Sort(names)
	return names
}

// checkFunc refuses functions outside the list and wrong argument counts.
func (rw *rewriter) checkFunc(x *ast.FuncCallExpr) error {
	f, ok := functions[x.FnName.L]
	if !ok || x.Schema.L != "" {
		return refuse("function %s is not allowed; the allowed functions are %s", strings.ToUpper(x.FnName.O), strings.Join(FunctionNames(), ", "))
	}
	if len(x.Args) < f.min || f.max >= 0 && len(x.Args) > f.max {
		return refuse("%s takes %s arguments, not %d", strings.ToUpper(x.FnName.O), arity(f), len(x.Args))
	}
	return nil
}

func arity(f fn) string {
	switch {
	case f.max < 0:
		return "at least " + itoa(f.min)
	case f.min == f.max:
		return itoa(f.min)
	}
	return itoa(f.min) + " to " + itoa(f.max)
}

func itoa(n int) string { return strconv.Itoa(n) }

// translate writes a checked function for the dialect.
func (rw *rewriter) translate(x *ast.FuncCallExpr) (ast.ExprNode, error) {
	f := functions[x.FnName.L]
	if rw.p.Dialect != SQLite || f.sqlite == nil {
		return x, nil
	}
	return f.sqlite(rw, x)
}

// call is a call of a SQLite function. Its name is written quoted, which
// SQLite accepts, so the MySQL parser can read the statement back (it
// takes DATETIME for a type otherwise).
func call(name string, args ...ast.ExprNode) *ast.FuncCallExpr {
	return &ast.FuncCallExpr{FnName: ast.NewCIStr(name), Args: args, Tp: ast.FuncCallExprTypeGeneric}
}

func castInt(e ast.ExprNode) ast.ExprNode {
	return &ast.FuncCastExpr{Expr: e, Tp: types.NewFieldType(mysql.TypeLonglong), FunctionType: ast.CastFunction}
}

func rename(to string) func(*rewriter, *ast.FuncCallExpr) (ast.ExprNode, error) {
	return func(_ *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) { return call(to, x.Args...), nil }
}

// concat becomes printf('%s%s...', ...). Unlike MySQL a NULL argument
// counts as empty text.
func concat(rw *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
	format := strings.Repeat("%s", len(x.Args))
	return call("printf", append([]ast.ExprNode{rw.bind(format)}, x.Args...)...), nil
}

func left(rw *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
	return call("substr", x.Args[0], rw.bind(int64(1)), x.Args[1]), nil
}

func right(_ *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
	return call("substr", x.Args[0], &ast.UnaryOperationExpr{Op: opcode.Minus, V: &ast.ParenthesesExpr{Expr: x.Args[1]}}), nil
}

func trim(_ *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
	if len(x.Args) > 1 {
		return nil, refuse("TRIM takes one argument on this database: TRIM(text)")
	}
	return x, nil
}

func mod(_ *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
	return &ast.ParenthesesExpr{Expr: &ast.BinaryOperationExpr{Op: opcode.Mod, L: x.Args[0], R: x.Args[1]}}, nil
}

func now(rw *rewriter, _ *ast.FuncCallExpr) (ast.ExprNode, error) {
	return call("datetime", rw.bind("now")), nil
}

func today(rw *rewriter, _ *ast.FuncCallExpr) (ast.ExprNode, error) {
	return call("date", rw.bind("now")), nil
}

func part(layout string) func(*rewriter, *ast.FuncCallExpr) (ast.ExprNode, error) {
	return func(rw *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
		return castInt(call("strftime", rw.bind(layout), x.Args[0])), nil
	}
}

func datediff(_ *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
	day := func(e ast.ExprNode) ast.ExprNode { return call("julianday", call("date", e)) }
	return castInt(&ast.BinaryOperationExpr{Op: opcode.Minus, L: day(x.Args[0]), R: day(x.Args[1])}), nil
}

// sqliteUnits are the interval units SQLite's date functions know.
var sqliteUnits = map[ast.TimeUnitType]string{
	ast.TimeUnitSecond: "seconds", ast.TimeUnitMinute: "minutes", ast.TimeUnitHour: "hours",
	ast.TimeUnitDay: "days", ast.TimeUnitMonth: "months", ast.TimeUnitYear: "years",
}

// interval turns DATE_ADD(d, INTERVAL n unit) into datetime(d, '+n unit')
// when n is a whole number written in the statement.
func interval(sign int64) func(*rewriter, *ast.FuncCallExpr) (ast.ExprNode, error) {
	return func(rw *rewriter, x *ast.FuncCallExpr) (ast.ExprNode, error) {
		b, okValue := x.Args[1].(*boundValue)
		n, okInt := intValue(b, okValue)
		u, okUnit := x.Args[2].(*ast.TimeUnitExpr)
		unit, known := "", false
		if okUnit {
			unit, known = sqliteUnits[u.Unit]
			if u.Unit == ast.TimeUnitWeek {
				n, unit, known = n*7, "days", true
			}
		}
		if !okInt || !known {
			return nil, refuse("on this database %s takes a whole number and SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR: DATE_ADD(d, INTERVAL 3 DAY)", strings.ToUpper(x.FnName.O))
		}
		return call("datetime", x.Args[0], rw.bind(signed(sign*n)+" "+unit)), nil
	}
}

// intValue returns a bound whole number below 2^40, which keeps n*7 and
// the sign in range.
func intValue(b *boundValue, ok bool) (int64, bool) {
	if !ok {
		return 0, false
	}
	switch v := b.value.(type) {
	case int64:
		return v, v > -1<<40 && v < 1<<40
	case uint64:
		return int64(v), v < 1<<40
	}
	return 0, false
}

func signed(n int64) string {
	if n < 0 {
		return strconv.FormatInt(n, 10)
	}
	return "+" + strconv.FormatInt(n, 10)
}
