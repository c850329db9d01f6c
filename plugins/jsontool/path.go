package jsontool

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// step is one part of a path: a key, an index, or every element.
type step struct {
	key   string
	index int
	kind  byte // 'k' key, 'i' index, '*' every element
}

// String writes the step as it appears in a path.
func (s step) String() string {
	switch s.kind {
	case 'i':
		return "[" + strconv.Itoa(s.index) + "]"
	case '*':
		return "[*]"
	}
	return "." + s.key
}

// parsePath reads a.b[0]["c d"][*].e, with an optional leading "$". It
// fails with errs.Invalid naming "path".
func parsePath(path string) ([]step, error) {
	s := strings.TrimPrefix(strings.TrimSpace(path), "$")
	var steps []step
	for i := 0; i < len(s); {
		var st step
		var err error
		switch s[i] {
		case '.':
			i++
			st, i, err = readKey(s, i)
		case '[':
			st, i, err = readBracket(s, i)
		default:
			if len(steps) > 0 {
				return nil, errs.Invalid("path", "expected . or [ at position %d of %q", i+1, path)
			}
			st, i, err = readKey(s, i)
		}
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	return steps, nil
}

func readKey(s string, i int) (step, int, error) {
	end := i
	for end < len(s) && s[end] != '.' && s[end] != '[' {
		end++
	}
	key := strings.TrimSpace(s[i:end])
	if key == "" {
		return step{}, 0, errs.Invalid("path", "empty key at position %d of %q", i+1, s)
	}
	if key == "*" {
		return step{kind: '*'}, end, nil
	}
	return step{kind: 'k', key: key}, end, nil
}

func readBracket(s string, i int) (step, int, error) {
	if q := s[i+1:]; strings.HasPrefix(q, `"`) || strings.HasPrefix(q, `'`) {
		closing := strings.IndexByte(q[1:], q[0])
		if closing < 0 || !strings.HasPrefix(q[closing+2:], "]") {
			return step{}, 0, errs.Invalid("path", "unterminated quoted key at position %d of %q", i+1, s)
		}
		return step{kind: 'k', key: q[1 : closing+1]}, i + closing + 4, nil
	}
	end := strings.IndexByte(s[i:], ']')
	if end < 0 {
		return step{}, 0, errs.Invalid("path", "missing ] after position %d of %q", i+1, s)
	}
	inner := strings.TrimSpace(s[i+1 : i+end])
	next := i + end + 1
	if inner == "*" {
		return step{kind: '*'}, next, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil {
		return step{}, 0, errs.Invalid("path", "[%s] is not an index; use [0], [-1], [*] or [\"key\"]", inner)
	}
	return step{kind: 'i', index: n}, next, nil
}

// walk follows steps from v. With a [*] step the answer is an array of
// what each element leads to; elements where the rest of the path does
// not lead anywhere are left out. It fails with errs.Invalid naming
// "path" and saying what is there instead.
func walk(v any, steps []step, at string) (any, error) {
	for i, st := range steps {
		if st.kind == '*' {
			return walkAll(v, steps[i+1:], at)
		}
		next, err := stepInto(v, st, at)
		if err != nil {
			return nil, err
		}
		v, at = next, at+st.String()
	}
	return v, nil
}

func walkAll(v any, rest []step, at string) (any, error) {
	var elems []any
	switch x := v.(type) {
	case []any:
		elems = x
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			elems = append(elems, x[k])
		}
	default:
		return nil, errs.Invalid("path", "%s is %s, so [*] has nothing to go through", where(at), describe(v))
	}
	out := []any{}
	for i, e := range elems {
		if r, err := walk(e, rest, fmt.Sprintf("%s[%d]", at, i)); err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func stepInto(v any, st step, at string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if st.kind == 'i' {
			return nil, errs.Invalid("path", "%s is an object, not an array; its keys are %s", where(at), keys(x))
		}
		if e, ok := x[st.key]; ok {
			return e, nil
		}
		return nil, errs.Invalid("path", "%s has no key %q; its keys are %s", where(at), st.key, keys(x))
	case []any:
		if st.kind != 'i' {
			return nil, errs.Invalid("path", "%s is an array of %d elements; use an index such as [0] or [*], not .%s", where(at), len(x), st.key)
		}
		n := st.index
		if n < 0 {
			n += len(x)
		}
		if n < 0 || n >= len(x) {
			return nil, errs.Invalid("path", "%s has %d elements; index %d is out of range", where(at), len(x), st.index)
		}
		return x[n], nil
	}
	return nil, errs.Invalid("path", "%s is %s and has nothing inside", where(at), describe(v))
}

func where(at string) string {
	if at == "" {
		return "the document"
	}
	return strings.TrimPrefix(at, ".")
}

func keys(m map[string]any) string {
	ks := slices.Sorted(maps.Keys(m))
	if len(ks) == 0 {
		return "none"
	}
	if len(ks) > 20 {
		return strings.Join(ks[:20], ", ") + fmt.Sprintf(" and %d more", len(ks)-20)
	}
	return strings.Join(ks, ", ")
}
