package workflow

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// compareOp is one comparison of a condition node.
type compareOp struct {
	// left is the type family the left value must have ("" for any);
	// unary ops take no right value.
	left  []Type
	unary bool
	eval  func(l, r any) (bool, error)
}

var (
	numeric  = []Type{TypeInteger, TypeNumber}
	textual  = []Type{TypeString, TypeFile}
	sequence = []Type{TypeString, TypeFile, TypeArray, TypeObject}
)

// compareOps are the comparisons a condition may use.
var compareOps = map[string]compareOp{
	"eq":           {eval: func(l, r any) (bool, error) { return equalValues(l, r), nil }},
	"ne":           {eval: func(l, r any) (bool, error) { return !equalValues(l, r), nil }},
	"gt":           {left: numeric, eval: numCmp(func(c int) bool { return c > 0 })},
	"gte":          {left: numeric, eval: numCmp(func(c int) bool { return c >= 0 })},
	"lt":           {left: numeric, eval: numCmp(func(c int) bool { return c < 0 })},
	"lte":          {left: numeric, eval: numCmp(func(c int) bool { return c <= 0 })},
	"contains":     {left: sequence, eval: contains},
	"not_contains": {left: sequence, eval: negate(contains)},
	"starts_with":  {left: textual, eval: strOp(strings.HasPrefix)},
	"ends_with":    {left: textual, eval: strOp(strings.HasSuffix)},
	"matches":      {left: textual, eval: matches},
	"empty":        {unary: true, eval: func(l, _ any) (bool, error) { return isEmpty(l), nil }},
	"not_empty":    {unary: true, eval: func(l, _ any) (bool, error) { return !isEmpty(l), nil }},
	"true":         {left: []Type{TypeBoolean}, unary: true, eval: func(l, _ any) (bool, error) { return l == true, nil }},
	"false":        {left: []Type{TypeBoolean}, unary: true, eval: func(l, _ any) (bool, error) { return l == false, nil }},
}

// compareOpNames lists the ops, sorted, for messages.
func compareOpNames() string {
	names := make([]string, 0, len(compareOps)+len(lengthOps))
	for k := range compareOps {
		names = append(names, k)
	}
	for k := range lengthOps {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// equalValues compares two values, numbers by value.
func equalValues(l, r any) bool {
	if lf, ok := asFloat(l); ok {
		rf, ok := asFloat(r)
		return ok && lf == rf
	}
	return reflect.DeepEqual(l, r)
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// numCmp compares numbers; null is smaller than any number and equal to
// null (as in Coze Studio's selector).
func numCmp(ok func(int) bool) func(l, r any) (bool, error) {
	return func(l, r any) (bool, error) {
		if l == nil || r == nil {
			return ok(nullOrder(l, r)), nil
		}
		lf, lok := asFloat(l)
		rf, rok := asFloat(r)
		if !lok || !rok {
			return false, fmt.Errorf("needs two numbers, got %s and %s", preview(l, 30), preview(r, 30))
		}
		switch {
		case lf < rf:
			return ok(-1), nil
		case lf > rf:
			return ok(1), nil
		}
		return ok(0), nil
	}
}

// nullOrder orders two values of which at least one is null.
func nullOrder(l, r any) int {
	switch {
	case l == nil && r == nil:
		return 0
	case l == nil:
		return -1
	}
	return 1
}

func contains(l, r any) (bool, error) {
	switch x := l.(type) {
	case nil:
		return false, nil
	case string:
		s, ok := r.(string)
		if !ok {
			return false, fmt.Errorf("a text contains only text, got %s", preview(r, 30))
		}
		return strings.Contains(x, s), nil
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return equalValues(e, r) }), nil
	case map[string]any:
		k, ok := r.(string)
		if !ok {
			return false, fmt.Errorf("an object contains keys, which are text, got %s", preview(r, 30))
		}
		_, has := x[k]
		return has, nil
	}
	return false, fmt.Errorf("contains needs a text, an array or an object, got %s", preview(l, 30))
}

func negate(f func(l, r any) (bool, error)) func(l, r any) (bool, error) {
	return func(l, r any) (bool, error) {
		ok, err := f(l, r)
		return !ok, err
	}
}

func strOp(f func(s, p string) bool) func(l, r any) (bool, error) {
	return func(l, r any) (bool, error) {
		if l == nil {
			return false, nil
		}
		ls, lok := l.(string)
		rs, rok := r.(string)
		if !lok || !rok {
			return false, fmt.Errorf("needs two texts, got %s and %s", preview(l, 30), preview(r, 30))
		}
		return f(ls, rs), nil
	}
}

func matches(l, r any) (bool, error) {
	if l == nil {
		return false, nil
	}
	ls, lok := l.(string)
	rs, rok := r.(string)
	if !lok || !rok {
		return false, fmt.Errorf("needs a text and a pattern, got %s and %s", preview(l, 30), preview(r, 30))
	}
	re, err := regexp.Compile(rs)
	if err != nil {
		return false, fmt.Errorf("pattern %q: %v", rs, err)
	}
	return re.MatchString(ls), nil
}

// isEmpty reports null, "", an empty array and an empty object.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
