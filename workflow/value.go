package workflow

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Values between nodes are JSON values held as Go values: nil, string,
// int64 (integers), float64 (other numbers), bool, map[string]any and
// []any. normalize brings decoded or foreign values to that form.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = s
		}
		return out
	}
	return v
}

// typeOfValue returns the type of a normalized value; nil is TypeAny.
func typeOfValue(v any) Type {
	switch v.(type) {
	case string:
		return TypeString
	case int64:
		return TypeInteger
	case float64:
		return TypeNumber
	case bool:
		return TypeBoolean
	case map[string]any:
		return TypeObject
	case []any:
		return TypeArray
	}
	return TypeAny
}

// conform checks a normalized value against s and converts what converts
// without loss: an integral number to an integer, a number to a number.
// Strings are converted to numbers and booleans only when lenient (the
// parameters of a run, which callers often send as text). nil conforms to
// every schema. The error says what was expected and what came.
func conform(s Schema, v any, lenient bool) (any, error) {
	if v == nil || s.Type == TypeAny {
		return v, nil
	}
	switch s.Type {
	case TypeString, TypeFile:
		if str, ok := v.(string); ok {
			return str, nil
		}
	case TypeInteger:
		return toInteger(v, lenient)
	case TypeNumber:
		return toNumber(v, lenient)
	case TypeBoolean:
		return toBoolean(v, lenient)
	case TypeObject:
		return conformObject(s, v, lenient)
	case TypeArray:
		return conformArray(s, v, lenient)
	}
	return nil, mismatch(s, v)
}

func mismatch(s Schema, v any) error {
	return fmt.Errorf("want %s, got %s %s", s, describeType(v), preview(v, 40))
}

func describeType(v any) string {
	if t := typeOfValue(v); t != TypeAny {
		return string(t)
	}
	return "null"
}

func toInteger(v any, lenient bool) (any, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if x == math.Trunc(x) {
			return int64(x), nil
		}
	case string:
		if i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); lenient && err == nil {
			return i, nil
		}
	}
	return nil, mismatch(S(TypeInteger), v)
}

func toNumber(v any, lenient bool) (any, error) {
	switch x := v.(type) {
	case int64, float64:
		return x, nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); lenient && err == nil {
			return normalize(f), nil
		}
	}
	return nil, mismatch(S(TypeNumber), v)
}

func toBoolean(v any, lenient bool) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); lenient && err == nil {
			return b, nil
		}
	}
	return nil, mismatch(S(TypeBoolean), v)
}

func conformObject(s Schema, v any, lenient bool) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, mismatch(s, v)
	}
	for _, p := range s.Properties {
		got, err := conform(p.Schema, m[p.Name], lenient)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		if got != nil {
			m[p.Name] = got
		}
	}
	return m, nil
}

func conformArray(s Schema, v any, lenient bool) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, mismatch(s, v)
	}
	if s.Items == nil {
		return list, nil
	}
	for i, e := range list {
		got, err := conform(*s.Items, e, lenient)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		list[i] = got
	}
	return list, nil
}

// valueAt follows a path into a value: object keys and array indexes. ok
// is false when a step is missing.
func valueAt(v any, path []string) (any, bool) {
	for _, seg := range path {
		switch x := v.(type) {
		case map[string]any:
			e, found := x[seg]
			if !found {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// text renders a value for a template or a text output: strings as they
// are, null as "", everything else as compact JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// preview is text(v) cut to n characters, for error messages.
func preview(v any, n int) string {
	s := text(v)
	if _, isString := v.(string); isString {
		s = strconv.Quote(s)
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// cloneValue copies maps and slices, so a node cannot change what another
// node output.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}
