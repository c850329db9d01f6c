package openapi

import (
	"fmt"
	"slices"
)

// Bounds of one converted schema.
const (
	schemaBudget   = 20_000 // nodes, after $refs are expanded
	maxSchemaDepth = 40
)

// copied are the JSON Schema keywords kept as they are.
var copied = []string{
	"title", "description", "format", "default", "enum", "const", "multipleOf",
	"minimum", "maximum", "minLength", "maxLength", "pattern",
	"minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "examples",
}

// converter turns OpenAPI 3.0 and 3.1 schemas into the plain JSON Schema a
// model is given: $refs expanded (a recursive one is cut where it comes
// back), 3.0's nullable and boolean exclusive bounds rewritten the 3.1 way,
// read-only properties dropped (they are never sent), and keywords models
// do not use (discriminator, xml, extensions) left out.
type converter struct {
	r      *resolver
	budget int
	stack  []string
}

func newConverter(r *resolver) *converter { return &converter{r: r, budget: schemaBudget} }

func (c *converter) convert(node any, depth int) (map[string]any, error) {
	c.budget--
	if c.budget < 0 {
		return nil, fmt.Errorf("the schema is too large once its $refs are expanded (more than %d nodes)", schemaBudget)
	}
	if b, ok := node.(bool); ok { // 3.1 boolean schemas
		if b {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	}
	if node == nil {
		return map[string]any{}, nil
	}
	m, ref, err := c.r.deref(node)
	if err != nil {
		return nil, err
	}
	if ref != "" {
		if slices.Contains(c.stack, ref) || depth > maxSchemaDepth {
			return map[string]any{"type": "object", "description": "(recursive, see " + ref + ")"}, nil
		}
		c.stack = append(c.stack, ref)
		defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	}
	if depth > maxSchemaDepth {
		return map[string]any{}, nil
	}
	return c.convertObject(m, depth)
}

func (c *converter) convertObject(m map[string]any, depth int) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range copied {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	if ex, ok := m["example"]; ok && out["examples"] == nil {
		out["examples"] = []any{ex}
	}
	convertType(m, out)
	convertBounds(m, out)
	if err := c.convertChildren(m, out, depth); err != nil {
		return nil, err
	}
	if _, typed := out["type"]; !typed && out["properties"] != nil {
		out["type"] = "object"
	}
	return out, nil
}

// convertType copies "type" (a name or a 3.1 list) and turns 3.0's
// nullable into a list with "null".
func convertType(m, out map[string]any) {
	t, ok := m["type"]
	if !ok {
		return
	}
	out["type"] = t
	if nullable, _ := m["nullable"].(bool); nullable {
		if name, ok := t.(string); ok && name != "null" {
			out["type"] = []any{name, "null"}
		}
	}
}

// convertBounds rewrites 3.0's boolean exclusiveMinimum/Maximum into 3.1's
// numeric form.
func convertBounds(m, out map[string]any) {
	for _, pair := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		switch v := m[pair[0]].(type) {
		case bool:
			if bound, ok := m[pair[1]]; ok && v {
				out[pair[0]] = bound
				delete(out, pair[1])
			}
		case float64:
			out[pair[0]] = v
		}
	}
}

func (c *converter) convertChildren(m, out map[string]any, depth int) error {
	for _, k := range []string{"items", "not"} {
		if v, ok := m[k]; ok {
			s, err := c.convert(v, depth+1)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			out[k] = s
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case bool:
		out["additionalProperties"] = ap
	case map[string]any:
		s, err := c.convert(ap, depth+1)
		if err != nil {
			return fmt.Errorf("additionalProperties: %w", err)
		}
		out["additionalProperties"] = s
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, ok := m[k].([]any)
		if !ok {
			continue
		}
		subs := make([]any, 0, len(list))
		for i, v := range list {
			s, err := c.convert(v, depth+1)
			if err != nil {
				return fmt.Errorf("%s[%d]: %w", k, i, err)
			}
			subs = append(subs, s)
		}
		out[k] = subs
	}
	return c.convertProperties(m, out, depth)
}

func (c *converter) convertProperties(m, out map[string]any, depth int) error {
	props, ok := m["properties"].(map[string]any)
	if !ok {
		if req, ok := m["required"].([]any); ok {
			out["required"] = req
		}
		return nil
	}
	converted := make(map[string]any, len(props))
	var readOnly []string
	for _, name := range sortedKeys(props) {
		if pm, _, err := c.r.deref(props[name]); err == nil {
			if ro, _ := pm["readOnly"].(bool); ro {
				readOnly = append(readOnly, name)
				continue
			}
		}
		s, err := c.convert(props[name], depth+1)
		if err != nil {
			return fmt.Errorf("properties.%s: %w", name, err)
		}
		converted[name] = s
	}
	out["properties"] = converted
	var required []any
	for _, r := range asList(m["required"]) {
		if name, ok := r.(string); ok && !slices.Contains(readOnly, name) {
			required = append(required, name)
		}
	}
	if len(required) > 0 {
		out["required"] = required
	}
	return nil
}

// mergeAllOf folds an allOf of object schemas into one object schema, so
// a body declared as "allOf: [Base, {extra fields}]" can be flattened into
// arguments. It returns s unchanged when that is not possible.
func mergeAllOf(s map[string]any) map[string]any {
	subs, ok := s["allOf"].([]any)
	if !ok {
		return s
	}
	out := map[string]any{"type": "object", "properties": map[string]any{}}
	props := out["properties"].(map[string]any)
	var required []any
	for k, v := range s {
		if k != "allOf" && k != "type" && k != "properties" && k != "required" {
			out[k] = v
		}
	}
	parts := append([]any{withoutAllOf(s)}, subs...)
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		pm = mergeAllOf(pm)
		if pm == nil || pm["anyOf"] != nil || pm["oneOf"] != nil || pm["allOf"] != nil {
			return s
		}
		if t, ok := pm["type"]; ok && t != "object" {
			return s
		}
		sub, _ := pm["properties"].(map[string]any)
		for k, v := range sub {
			props[k] = v
		}
		required = append(required, asList(pm["required"])...)
	}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

func withoutAllOf(s map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"properties", "required"} {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
