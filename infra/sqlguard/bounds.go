package sqlguard

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/pergola-ai/pergola/domain/table"
)

// Bounds of what a statement may compute. Every expression gets an upper
// bound of its value's length in bytes, from the lengths of literals, the
// most a column can hold and how much each function can grow its
// arguments; a statement with an expression over MaxValueBytes anywhere
// (also inside WHERE, where the value is thrown away after computing it)
// is refused, so a few bytes of SQL cannot make the database build
// gigabytes (REPLACE inside REPLACE, CONCAT of CONCATs).
const (
	MaxValueBytes = 1 << 20 // bytes of one expression's value
	MaxRowBytes   = 8 << 20 // bytes of one row of a SELECT's result
	// MaxWork bounds the bytes a statement's expressions build or move
	// for one row: the sum of every expression's bound, plus the cost of
	// REPLACE, which MariaDB pays per replacement with a move of the rest
	// of the text (quadratic).
	MaxWork = 256 << 20
	// MaxStoredBytes bounds a value an INSERT or UPDATE writes, so what a
	// column holds stays within what the bounds assume of it.
	MaxStoredBytes = table.MaxTextLen
	numberBytes    = 100     // a number or date as text
	huge           = 1 << 50 // bounds saturate here
)

// Bounds of LIKE patterns: their cost grows with the number of % in them.
const (
	maxLikePattern  = 256
	maxLikePercents = 4
)

// sized is the bound of an expression and the first subexpression found
// over MaxValueBytes.
type sized struct {
	rw   *rewriter
	at   place
	over ast.ExprNode
	max  int64
	work int64 // bytes built or moved
}

// checkSize refuses e when any part of it can be longer than
// MaxValueBytes, and returns its bound.
func (rw *rewriter) checkSize(e ast.ExprNode, at place) (int64, error) {
	if e == nil {
		return 0, nil
	}
	z := &sized{rw: rw, at: at}
	n := z.of(e)
	if z.over != nil {
		return 0, refuse("the value of %s can be up to %s long, over the limit of %s: REPLACE, CONCAT, UPPER and LOWER multiply lengths; "+
			"compute less, or cut the text first with LEFT(text, 1000)", snippet(z.over), bytesText(z.max), bytesText(MaxValueBytes))
	}
	rw.work = min(rw.work+z.work, huge)
	if rw.work > MaxWork {
		return 0, refuse("the statement is too costly to compute (up to %s of text work per row, over %s); "+
			"REPLACE on long text is the usual cause: cut the text first, e.g. REPLACE(LEFT(text, 1000), 'a', 'b')", bytesText(rw.work), bytesText(MaxWork))
	}
	return n, nil
}

// boundOf is the bound of e, without checking it.
func (rw *rewriter) boundOf(e ast.ExprNode, at place) int64 {
	return (&sized{rw: rw, at: at}).of(e)
}

// of returns the bound of e and notes the largest one over the limit.
func (z *sized) of(e ast.ExprNode) int64 {
	n := min(z.node(e), huge)
	z.work = min(z.work+n, huge)
	if n > MaxValueBytes && n > z.max {
		z.over, z.max = e, n
	}
	return n
}

func (z *sized) node(e ast.ExprNode) int64 {
	switch x := e.(type) {
	case *boundValue:
		return valueBytes(x.value)
	case *driver.ValueExpr:
		return valueBytes(x.GetValue())
	case *ast.ColumnNameExpr:
		return z.rw.columnBytes(x.Name, z.at)
	case *ast.ParenthesesExpr:
		return z.of(x.Expr)
	case *ast.BinaryOperationExpr:
		z.of(x.L)
		z.of(x.R)
		if isArithmetic(x.Op) {
			return numberBytes
		}
		return 1
	case *ast.UnaryOperationExpr:
		return max(z.of(x.V), numberBytes)
	case *ast.CaseExpr:
		return z.caseBytes(x)
	case *ast.FuncCallExpr:
		return z.funcBytes(x)
	case *ast.AggregateFuncExpr:
		return z.aggregateBytes(x)
	case *ast.FuncCastExpr:
		return max(z.of(x.Expr), numberBytes, int64(x.Tp.GetFlen()))
	}
	z.children(e)
	return 1 // predicates; other nodes are refused by the checker
}

// children bounds the subexpressions of a predicate.
func (z *sized) children(e ast.ExprNode) {
	switch x := e.(type) {
	case *ast.BetweenExpr:
		z.all(x.Expr, x.Left, x.Right)
	case *ast.IsNullExpr:
		z.of(x.Expr)
	case *ast.IsTruthExpr:
		z.of(x.Expr)
	case *ast.PatternInExpr:
		z.all(append([]ast.ExprNode{x.Expr}, x.List...)...)
	case *ast.PatternLikeOrIlikeExpr:
		z.all(x.Expr, x.Pattern)
	}
}

// all returns the largest bound of es.
func (z *sized) all(es ...ast.ExprNode) int64 {
	var n int64
	for _, e := range es {
		if e != nil {
			n = max(n, z.of(e))
		}
	}
	return n
}

func (z *sized) caseBytes(x *ast.CaseExpr) int64 {
	z.all(x.Value)
	n := z.all(x.ElseClause)
	for _, w := range x.WhenClauses {
		z.of(w.Expr)
		n = max(n, z.of(w.Result))
	}
	return n
}

func (z *sized) aggregateBytes(x *ast.AggregateFuncExpr) int64 {
	n := z.all(x.Args...)
	switch strings.ToLower(x.F) {
	case "min", "max":
		return n
	}
	return numberBytes
}

// valueBytes is the length of a literal.
func valueBytes(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	case driver.BinaryLiteral:
		return int64(len(x))
	}
	return numberBytes
}

// columnBytes is the most a column holds; at inOutput a select alias
// stands for its expression.
func (rw *rewriter) columnBytes(cn *ast.ColumnName, at place) int64 {
	if at == inOutput && cn.Table.L == "" {
		if n, ok := rw.outputBytes[cn.Name.L]; ok {
			return n
		}
	}
	col, ok := rw.columns[cn.Name.L]
	if !ok {
		return 0 // refused by the checker
	}
	switch col.Type {
	case table.TypeInteger, table.TypeNumber:
		return numberBytes
	case table.TypeBoolean:
		return 1
	}
	return MaxStoredBytes
}

func isArithmetic(op opcode.Op) bool {
	switch op {
	case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod,
		opcode.And, opcode.Or, opcode.Xor, opcode.LeftShift, opcode.RightShift:
		return true
	}
	return false
}

// snippet shows an expression in an error message, shortened.
func snippet(e ast.ExprNode) string {
	var sb strings.Builder
	if err := e.Restore(format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreKeyWordUppercase, &sb)); err != nil || sb.Len() == 0 {
		return "an expression"
	}
	s := sb.String()
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return s
}

func bytesText(n int64) string {
	switch {
	case n >= huge:
		return "more than a petabyte"
	case n >= 10<<20:
		return itoa(int(n>>20)) + " MiB"
	case n >= 10<<10:
		return itoa(int(n>>10)) + " KiB"
	}
	return itoa(int(n)) + " bytes"
}

// storedSize refuses a value written to col that can be longer than a
// column may hold.
func (rw *rewriter) storedSize(col *Column, e ast.ExprNode, at place) error {
	n, err := rw.checkSize(e, at)
	if err != nil {
		return err
	}
	if n > MaxStoredBytes {
		return refuse("the value written to %s can be up to %s long, over the %d bytes a value may have; cut it, e.g. LEFT(%s, 10000)",
			col.Name, bytesText(n), MaxStoredBytes, snippet(e))
	}
	return nil
}

// checkLike bounds the work of LIKE: its pattern must be a quoted string
// of at most maxLikePattern bytes with at most maxLikePercents runs of %,
// since each % makes the database try every position of the text.
func checkLike(x *ast.PatternLikeOrIlikeExpr) error {
	v, ok := literalValue(x.Pattern)
	pattern, isText := v.(string)
	if !ok || !isText {
		return refuse("the pattern of LIKE must be a quoted string, such as LIKE 'abc%%'")
	}
	if len(pattern) > maxLikePattern {
		return refuse("the pattern of LIKE is %d bytes; at most %d are allowed", len(pattern), maxLikePattern)
	}
	runs := 0
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '%' && (i == 0 || pattern[i-1] != '%') {
			runs++
		}
	}
	if runs > maxLikePercents {
		return refuse("the pattern of LIKE has %d %% wildcards; at most %d are allowed", runs, maxLikePercents)
	}
	return nil
}
