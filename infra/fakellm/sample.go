package fakellm

import (
	"strings"
)

// sample builds a value valid for schema s, deterministically: the const or
// first enum value, the first alternative of anyOf/oneOf, every property
// of an object, one item of an array (or minItems), "x" for a string (or a
// value of its format), 1 for a number (within its bounds), true.
func sample(s, root map[string]any, depth int) any {
	if s == nil || depth > 32 {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		return sample(resolveRef(root, ref), root, depth+1)
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok {
			for _, a := range alts {
				if as, ok := a.(map[string]any); ok && typeOf(as) != "null" {
					return sample(as, root, depth+1)
				}
			}
		}
	}
	switch typeOf(s) {
	case "object":
		return sampleObject(s, root, depth)
	case "array":
		items, _ := s["items"].(map[string]any)
		n := max(1, int(number(s["minItems"], 1)))
		out := make([]any, n)
		for i := range out {
			out[i] = sample(items, root, depth+1)
		}
		return out
	case "string":
		return sampleString(s)
	case "number", "integer":
		return sampleNumber(s)
	case "boolean":
		return true
	}
	return nil
}

func sampleObject(s, root map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		out[name] = sample(ps, root, depth+1)
	}
	return out
}

// resolveRef finds a local reference such as "#/$defs/Item".
func resolveRef(root map[string]any, ref string) map[string]any {
	if ref == "#" {
		return root
	}
	var cur any = root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

var stringFormats = map[string]string{
	"date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "time": "00:00:00",
	"email": "x@example.com", "uri": "https://example.com", "url": "https://example.com",
	"uuid": "00000000-0000-4000-8000-000000000000", "ipv4": "127.0.0.1",
}

func sampleString(s map[string]any) string {
	if f, ok := stringFormats[stringOf(s["format"])]; ok {
		return f
	}
	return strings.Repeat("x", max(1, int(number(s["minLength"], 1))))
}

func sampleNumber(s map[string]any) float64 {
	v := 1.0
	if lo := number(s["minimum"], v); lo > v {
		v = lo
	}
	if lo := number(s["exclusiveMinimum"], v-1); lo >= v {
		v = lo + 1
	}
	if hi := number(s["maximum"], v); hi < v {
		v = hi
	}
	return v
}

func number(v any, def float64) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return def
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}
