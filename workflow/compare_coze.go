package workflow

import (
	"fmt"
	"unicode/utf8"
)

// lengthOps compare the length of a text (in characters), an array or an
// object (its keys) with a whole number; null has length 0.
var lengthOps = map[string]compareOp{
	"len_gt":  {left: sequence, eval: lenCmp(func(c int) bool { return c > 0 })},
	"len_gte": {left: sequence, eval: lenCmp(func(c int) bool { return c >= 0 })},
	"len_lt":  {left: sequence, eval: lenCmp(func(c int) bool { return c < 0 })},
	"len_lte": {left: sequence, eval: lenCmp(func(c int) bool { return c <= 0 })},
}

// CompatCoze makes a condition node treat null, zero and false as Coze
// Studio's selector does.
const CompatCoze = "coze"

// cozeOps are the comparisons that Coze Studio's selector answers
// differently: empty holds for 0, false and "None" too, "is false" holds
// for null, and "does not contain" is false for null, as "contains" is.
var cozeOps = map[string]compareOp{
	"empty":        {unary: true, eval: func(l, _ any) (bool, error) { return cozeEmpty(l), nil }},
	"not_empty":    {unary: true, eval: func(l, _ any) (bool, error) { return !cozeEmpty(l), nil }},
	"false":        {left: []Type{TypeBoolean}, unary: true, eval: func(l, _ any) (bool, error) { return l != true, nil }},
	"not_contains": {left: sequence, eval: notContainsCoze},
}

// lookupOp finds a comparison, Coze's variant first when compat is coze.
func lookupOp(name, compat string) (compareOp, bool) {
	if compat == CompatCoze {
		if op, ok := cozeOps[name]; ok {
			return op, true
		}
	}
	if op, ok := lengthOps[name]; ok {
		return op, true
	}
	op, ok := compareOps[name]
	return op, ok
}

func lenCmp(ok func(int) bool) func(l, r any) (bool, error) {
	return func(l, r any) (bool, error) {
		n, err := lengthOf(l)
		if err != nil {
			return false, err
		}
		rf, isNum := asFloat(r)
		if !isNum {
			return false, fmt.Errorf("a length compares with a number, got %s", preview(r, 30))
		}
		return numCmp(ok)(int64(n), rf)
	}
}

func lengthOf(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case string:
		return utf8.RuneCountInString(x), nil
	case []any:
		return len(x), nil
	case map[string]any:
		return len(x), nil
	}
	return 0, fmt.Errorf("a length needs a text, an array or an object, got %s", preview(v, 30))
}

func cozeEmpty(v any) bool {
	switch x := v.(type) {
	case string:
		return x == "" || x == "None"
	case int64:
		return x == 0
	case float64:
		return x == 0
	case bool:
		return !x
	}
	return isEmpty(v)
}

func notContainsCoze(l, r any) (bool, error) {
	if l == nil {
		return false, nil
	}
	ok, err := contains(l, r)
	return !ok, err
}
