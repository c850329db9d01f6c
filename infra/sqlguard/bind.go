package sqlguard

import (
	"math"
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// boundValue is a literal written back as a "?" placeholder. Restore
// appends its value to the statement's arguments as it writes the "?", so
// the arguments follow the placeholders in the text whatever order the
// writer visits nodes in.
type boundValue struct {
	driver.ValueExpr
	value any
	args  *[]any
}

// Restore writes "?" and records the value.
func (b *boundValue) Restore(ctx *format.RestoreCtx) error {
	ctx.WritePlain("?")
	*b.args = append(*b.args, b.value)
	return nil
}

// Accept visits the node; it has no children.
func (b *boundValue) Accept(v ast.Visitor) (ast.Node, bool) {
	n, _ := v.Enter(b)
	return v.Leave(n)
}

// bind returns a placeholder for value.
func (rw *rewriter) bind(value any) *boundValue {
	b := &boundValue{value: value, args: &rw.args}
	b.SetValue(value)
	return b
}

// literal converts the value of a parsed literal to what the database
// driver takes: int64, uint64, float64, string, []byte or nil.
func literal(v *driver.ValueExpr) (any, error) {
	switch x := v.GetValue().(type) {
	case nil, int64, float64, string, []byte:
		return x, nil
	case uint64:
		if x > math.MaxInt64 { // drivers take int64; above it only a float is near
			return float64(x), nil
		}
		return int64(x), nil
	case float32:
		return float64(x), nil
	case *driver.MyDecimal:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			return nil, refuse("the number %s is out of range", x.String())
		}
		return f, nil
	case driver.BinaryLiteral:
		return []byte(x), nil
	}
	return nil, refuse("this kind of literal is not supported; write numbers, 'strings', TRUE, FALSE or NULL")
}
