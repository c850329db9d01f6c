package openapi

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxNodes bounds the values of a decoded document, so a small YAML text
// cannot unfold into an enormous tree.
const maxNodes = 200_000

// normalize turns what the YAML decoder produced into JSON-shaped values:
// maps with string keys, []any, float64 numbers, strings, bools and nil.
func normalize(v any, budget *int) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, fmt.Errorf("the document has more than %d values", maxNodes)
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e, budget)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case map[any]any: // keys YAML did not read as strings, e.g. 200
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = e
		}
		return normalize(m, budget)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e, budget)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	return scalar(v), nil
}

// scalar turns YAML's numbers and timestamps into JSON's.
func scalar(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case time.Time:
		return x.Format(time.RFC3339)
	}
	return v
}

// resolver follows local references ("#/components/schemas/Pet") inside
// one document.
type resolver struct {
	root map[string]any
}

// maxRefHops bounds a chain of references to references.
const maxRefHops = 16

// deref returns the object node stands for, following $ref chains, with
// the last reference followed ("" when there was none). 3.1 allows
// siblings next to $ref; they override what the reference brings.
func (r *resolver) deref(node any) (map[string]any, string, error) {
	m, ok := node.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("must be an object")
	}
	last := ""
	for hops := 0; ; hops++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, last, nil
		}
		if hops == maxRefHops {
			return nil, "", fmt.Errorf("$ref %q: more than %d references in a chain", ref, maxRefHops)
		}
		target, err := r.lookup(ref)
		if err != nil {
			return nil, "", err
		}
		tm, ok := target.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("$ref %q does not point at an object", ref)
		}
		if len(m) > 1 {
			merged := make(map[string]any, len(tm)+len(m))
			for k, v := range tm {
				merged[k] = v
			}
			for k, v := range m {
				if k != "$ref" {
					merged[k] = v
				}
			}
			if _, again := tm["$ref"]; !again {
				delete(merged, "$ref")
			}
			tm = merged
		}
		m, last = tm, ref
	}
}

// lookup resolves a local JSON pointer reference.
func (r *resolver) lookup(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only references inside the document (#/...) are supported", ref)
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	var cur any = r.root
	if frag == "" {
		return cur, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %q: not a JSON pointer", ref)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("$ref %q: %q does not exist in the document", ref, tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("$ref %q: %q is not an index of the list", ref, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("$ref %q: %q is not inside an object", ref, tok)
		}
	}
	return cur, nil
}
