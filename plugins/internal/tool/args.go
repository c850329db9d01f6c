package tool

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// String returns the required string argument name. It fails with
// errs.Invalid naming the argument when it is missing or not a string.
func String(args map[string]any, name string) (string, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return "", errs.Invalid(name, "is required")
	}
	s, ok := v.(string)
	if !ok {
		return "", errs.Invalid(name, "must be a string, got %s", kind(v))
	}
	return s, nil
}

// OptString returns the string argument name, or def when it is absent or
// empty. It fails with errs.Invalid when it is not a string.
func OptString(args map[string]any, name, def string) (string, error) {
	if v, ok := args[name]; !ok || v == nil || v == "" {
		return def, nil
	}
	return String(args, name)
}

// Number returns the required number argument name. Numbers written as
// text ("2.5") are accepted. It fails with errs.Invalid naming the
// argument when it is missing or not a finite number.
func Number(args map[string]any, name string) (float64, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return 0, errs.Invalid(name, "is required")
	}
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errs.Invalid(name, "must be a number, got %s", kind(v))
	}
	return f, nil
}

// OptInt returns the integer argument name, or def when it is absent. It
// fails with errs.Invalid naming the argument when it is not an integer
// between lo and hi.
func OptInt(args map[string]any, name string, def, lo, hi int) (int, error) {
	if v, ok := args[name]; !ok || v == nil || v == "" {
		return def, nil
	}
	f, err := Number(args, name)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, errs.Invalid(name, "must be an integer from %d to %d, got %v", lo, hi, args[name])
	}
	return int(f), nil
}

// OptBool returns the boolean argument name, or def when it is absent.
// "true" and "false" written as text are accepted. It fails with
// errs.Invalid naming the argument otherwise.
func OptBool(args map[string]any, name string, def bool) (bool, error) {
	switch v := args[name].(type) {
	case nil:
		return def, nil
	case bool:
		return v, nil
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			return b, nil
		}
	}
	return false, errs.Invalid(name, "must be true or false, got %s", kind(args[name]))
}

// OptEnum returns the string argument name, or def when it is absent; it
// fails with errs.Invalid naming the argument unless the value is one of
// allowed.
func OptEnum(args map[string]any, name, def string, allowed ...string) (string, error) {
	s, err := OptString(args, name, def)
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a, nil
		}
	}
	return "", errs.Invalid(name, "must be one of %s, got %q", strings.Join(allowed, ", "), s)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil
	}
	return 0, false
}

// kind describes a value for a message: its JSON type and a short excerpt.
func kind(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	if f, ok := toFloat(v); ok {
		return fmt.Sprintf("the number %v", f)
	}
	return fmt.Sprintf("a %T", v)
}
