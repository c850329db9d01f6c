package sqlguard

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// maxCharBytes is the most bytes one character takes (utf8mb4).
const maxCharBytes = 4

// funcBytes bounds a call of an allowed function from its arguments.
// Every argument is bounded too, even where the result does not grow
// with it.
func (z *sized) funcBytes(x *ast.FuncCallExpr) int64 {
	args := make([]int64, len(x.Args))
	for i, a := range x.Args {
		args[i] = z.of(a)
	}
	arg := func(i int) int64 {
		if i < len(args) {
			return args[i]
		}
		return 0
	}
	switch x.FnName.L {
	case "concat":
		return sum(args)
	case "replace":
		return z.replaceBytes(x.Args, args)
	case "lower", "upper", "lcase", "ucase":
		return 2 * arg(0) // case mapping can lengthen a character's encoding
	case "substring", "substr":
		return cut(arg(0), x.Args, 2)
	case "left", "right":
		return cut(arg(0), x.Args, 1)
	case "trim", "ltrim", "rtrim":
		return arg(0)
	case "coalesce", "ifnull", "nullif", "if", "greatest", "least":
		return maxOf(args)
	case "date", "date_add", "adddate", "date_sub", "subdate":
		return max(arg(0), numberBytes)
	}
	return numberBytes // lengths, numbers, dates and times
}

// replaceBytes bounds REPLACE(s, from, to): at most len(s)/len(from)
// replacements, each growing the text by len(to)-len(from). A from that
// is not a literal is taken as one byte long, the worst case. Unless from
// and to are literals of the same length, each replacement may move the
// rest of the text, which is added to the work.
func (z *sized) replaceBytes(exprs []ast.ExprNode, args []int64) int64 {
	s, to := args[0], args[2]
	from, sameLength := int64(1), false
	if v, ok := literalValue(exprs[1]); ok {
		str, isText := v.(string)
		if isText && len(str) == 0 {
			return s // nothing is replaced
		}
		if isText {
			from = int64(len(str))
			w, isLiteral := literalValue(exprs[2])
			repl, toText := w.(string)
			sameLength = isLiteral && toText && len(repl) == len(str)
		}
	}
	n := s
	if to > from {
		n = min(s+s/from*(to-from), huge)
	}
	if !sameLength && s > 0 {
		z.work = min(z.work+min(s/from, huge/n)*n, huge)
	}
	return n
}

// cut bounds SUBSTR, LEFT and RIGHT: a literal length of n characters
// keeps at most n characters.
func cut(text int64, exprs []ast.ExprNode, lengthArg int) int64 {
	if lengthArg >= len(exprs) {
		return text
	}
	v, ok := literalValue(exprs[lengthArg])
	if n, isInt := v.(int64); ok && isInt && n >= 0 && n < huge/maxCharBytes {
		return min(text, n*maxCharBytes)
	}
	if n, isUint := v.(uint64); ok && isUint && n < huge/maxCharBytes {
		return min(text, int64(n)*maxCharBytes)
	}
	return text
}

// literalValue is the value of a literal argument.
func literalValue(e ast.ExprNode) (any, bool) {
	switch x := e.(type) {
	case *boundValue:
		return x.value, true
	case *driver.ValueExpr:
		return x.GetValue(), true
	}
	return nil, false
}

func sum(ns []int64) int64 {
	var t int64
	for _, n := range ns {
		t = min(t+n, huge)
	}
	return t
}

func maxOf(ns []int64) int64 {
	var m int64
	for _, n := range ns {
		m = max(m, n)
	}
	return m
}
