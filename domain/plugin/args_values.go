package plugin

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// at names a value of the arguments for a message.
func at(path string) string {
	if path == "" {
		return "the arguments"
	}
	return strconv.Quote(path)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func known(props map[string]any) string {
	if len(props) == 0 {
		return " (this tool takes no arguments)"
	}
	return " (known: " + strings.Join(slices.Sorted(maps.Keys(props)), ", ") + ")"
}

// schemaTypes reads "type": a name or a list of names.
func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		return stringList(t)
	}
	return nil
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func schemaList(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func hasType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		f, ok := numberValue(v)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "number":
		_, ok := numberValue(v)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "null":
		return v == nil
	}
	return true // an unknown type name constrains nothing
}

// coerce converts a text value to the scalar type the schema wants, when
// the text is exactly such a value: models often quote numbers.
func coerce(v any, types []string) any {
	s, ok := v.(string)
	if !ok || slices.Contains(types, "string") {
		return v
	}
	for _, t := range types {
		switch t {
		case "integer", "number":
			if _, err := strconv.ParseFloat(s, 64); err == nil {
				return json.Number(s)
			}
		case "boolean":
			if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
				return b
			}
		}
	}
	return v
}

func numberValue(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func toFloat(v any) float64 {
	f, _ := numberValue(v)
	return f
}

func num(v any) (float64, bool) { return numberValue(v) }

// sameValue compares JSON values, numbers by value.
func sameValue(a, b any) bool {
	fa, okA := numberValue(a)
	fb, okB := numberValue(b)
	if okA || okB {
		return okA && okB && fa == fb
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

func describeTypes(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer", "object", "array":
			words[i] = "an " + t
		case "null":
			words[i] = "null"
		default:
			words[i] = "a " + t
		}
	}
	return strings.Join(words, " or ")
}

// describeValue shows a value briefly: short ones as JSON, long ones by
// their kind.
func describeValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	if len(b) <= 40 {
		return string(b)
	}
	switch v.(type) {
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return string(b[:37]) + "..."
}

func listValues(enum []any) string {
	parts := make([]string, 0, len(enum))
	for _, e := range enum {
		b, _ := json.Marshal(e)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// cloneValue copies maps and slices, so a trial check cannot change v.
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
