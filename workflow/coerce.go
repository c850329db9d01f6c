package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Coze Studio's conversions. A workflow imported from Coze (Definition
// Compat "coze") converts its parameters, the inputs its nodes declare a
// type for and their outputs to the declared types as Coze does: text and
// numbers and booleans into one another, JSON text into objects and
// arrays, objects and arrays into JSON text. A value that cannot be
// converted becomes null (an array: empty) and a warning in the node's
// logs; the run goes on. Declared fields missing from an object are null.

// CompatCoze also marks a definition imported from Coze Studio.

// coerce converts v to s; warn receives what could not be converted.
func coerce(s Schema, v any, path string, warn func(string)) any {
	if v == nil || s.Type == TypeAny || s.Type == "" {
		return v
	}
	out, err := coerceValue(s, v, path, warn)
	if err != nil {
		warn(fmt.Sprintf("%s: %v", path, err))
	}
	return out
}

func coerceValue(s Schema, v any, path string, warn func(string)) (any, error) {
	switch s.Type {
	case TypeString, TypeFile:
		return coerceString(v)
	case TypeInteger:
		return coerceInteger(v)
	case TypeNumber:
		return coerceNumber(v)
	case TypeBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		if str, ok := v.(string); ok {
			if b, err := strconv.ParseBool(str); err == nil {
				return b, nil
			}
		}
	case TypeObject:
		return coerceObject(s, v, path, warn)
	case TypeArray:
		return coerceArray(s, v, path, warn)
	}
	return nil, fmt.Errorf("cannot convert %s %s to %s", describeType(v), preview(v, 40), s.Type)
}

func coerceString(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return jsonText(v)
}

// jsonText writes v as JSON as Coze does (sonic): <, > and & as they are.
func jsonText(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func coerceInteger(v any) (any, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		return int64(x), nil
	case string:
		if i, err := strconv.ParseInt(x, 10, 64); err == nil {
			return i, nil
		}
	}
	return nil, fmt.Errorf("cannot convert %s %s to integer", describeType(v), preview(v, 40))
}

func coerceNumber(v any) (any, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f, nil
		}
	}
	return nil, fmt.Errorf("cannot convert %s %s to number", describeType(v), preview(v, 40))
}

func coerceObject(s Schema, v any, path string, warn func(string)) (any, error) {
	m, ok := v.(map[string]any)
	if str, isText := v.(string); isText {
		parsed, err := decodeValue([]byte(str))
		if err == nil && parsed == nil { // JSON null: null, as Coze
			return nil, nil
		}
		if m, ok = parsed.(map[string]any); err != nil || !ok {
			return nil, fmt.Errorf("%s is not a JSON object", preview(v, 40))
		}
	}
	if !ok {
		return nil, fmt.Errorf("cannot convert %s to object", describeType(v))
	}
	out := make(map[string]any, len(m)+len(s.Properties))
	for k, x := range m {
		out[k] = x
	}
	for _, p := range s.Properties {
		out[p.Name] = coerce(p.Schema, m[p.Name], path+"."+p.Name, warn)
	}
	return out, nil
}

func coerceArray(s Schema, v any, path string, warn func(string)) (any, error) {
	a, ok := v.([]any)
	if str, isText := v.(string); isText {
		parsed, err := decodeValue([]byte(str))
		if err == nil && parsed == nil { // JSON null: null, as Coze
			return nil, nil
		}
		if a, ok = parsed.([]any); err != nil || !ok {
			return []any{}, fmt.Errorf("%s is not a JSON array", preview(v, 40))
		}
	}
	if !ok {
		return []any{}, fmt.Errorf("cannot convert %s to array", describeType(v))
	}
	if s.Items == nil {
		return a, nil
	}
	out := make([]any, 0, len(a))
	for i, e := range a {
		failed := false
		c := coerce(*s.Items, e, fmt.Sprintf("%s.%d", path, i), func(w string) { failed = true; warn(w) })
		if !failed || s.Items.Type == TypeObject { // as Coze: elements that fail are left out, objects kept
			out = append(out, c)
		}
	}
	return out, nil
}

// runParams fills the start node's defaults in and converts the run's
// parameters: with Coze's conversions (their warnings returned) or
// checked as conformParams does.
func (c *Compiled) runParams(got map[string]any) (map[string]any, []string, error) {
	got = withDefaults(c.params, got)
	if !c.coze {
		out, err := conformParams(c.params, got)
		return out, nil, err
	}
	var warnings []string
	out := make(map[string]any, len(c.params))
	for _, p := range c.params {
		v := normalize(cloneValue(got[p.Name]))
		if v == nil && p.Required {
			return nil, nil, errs.Invalid("parameters."+p.Name, "is required (%s)", p.Schema)
		}
		out[p.Name] = coerce(p.Schema, v, p.Name, func(w string) { warnings = append(warnings, "warning: "+w) })
	}
	withCozeDefaults(c.params, out)
	return out, warnings, nil
}

// withDefaults returns got with each parameter that is absent, null, "",
// [] or {} set to its default, when it has one.
func withDefaults(params []Param, got map[string]any) map[string]any {
	var out map[string]any
	for _, p := range params {
		if p.Default == nil || !isEmpty(got[p.Name]) {
			continue
		}
		if out == nil {
			out = maps.Clone(got)
			if out == nil {
				out = map[string]any{}
			}
		}
		out[p.Name] = cloneValue(p.Default)
	}
	if out == nil {
		return got
	}
	return out
}

// coerceOutputs converts a node's outputs to their declared types as Coze
// does; what cannot be converted is null and a warning in the node's logs.
func coerceOutputs(params []Param, out map[string]any, x *nodeCtx) map[string]any {
	if out == nil {
		out = make(map[string]any, len(params))
	}
	kept := make(map[string]any, len(params))
	for _, p := range params {
		kept[p.Name] = coerce(p.Schema, normalize(out[p.Name]), p.Name, func(w string) {
			if x.logs != "" {
				x.logs += "\n"
			}
			x.logs += "warning: output " + w
		})
	}
	return kept
}

// Coerce converts v to s as Coze Studio does, returning what it could not
// convert as warnings.
func Coerce(s Schema, v any) (any, []string) {
	var warnings []string
	out := coerce(s, normalize(cloneValue(v)), "value", func(w string) { warnings = append(warnings, w) })
	return out, warnings
}
