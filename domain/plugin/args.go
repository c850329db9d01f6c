package plugin

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// maxProblems bounds what an ArgError lists: enough to fix a call, short
// enough to read.
const maxProblems = 8

// ArgError says what is wrong with the arguments of a tool call, in words
// a model can act on. It matches errs.ErrInvalid.
type ArgError struct {
	Problems []string
}

func (e *ArgError) Error() string {
	return "invalid arguments: " + strings.Join(e.Problems, "; ") + ". Fix the arguments and call the tool again."
}

// Is makes an ArgError match errs.ErrInvalid.
func (e *ArgError) Is(target error) bool { return target == errs.ErrInvalid }

// DecodeArgs reads the JSON arguments of a call: an object, or nothing.
func DecodeArgs(raw string) (map[string]any, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &ArgError{Problems: []string{"the arguments are not valid JSON: " + err.Error()}}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &ArgError{Problems: []string{"the arguments must be a JSON object"}}
	}
	return m, nil
}

// CheckArgs checks args against the tool's JSON Schema. Values of the
// wrong type that carry the right one as text ("5" for an integer,
// "true" for a boolean) are converted in place, and a missing required
// property that has a default takes it. It returns an *ArgError listing
// what is still wrong.
func CheckArgs(schema map[string]any, args map[string]any) error {
	c := &checker{}
	c.check("", schema, args, 0)
	if len(c.problems) > 0 {
		return &ArgError{Problems: c.problems}
	}
	return nil
}

type checker struct{ problems []string }

func (c *checker) add(format string, a ...any) {
	if len(c.problems) < maxProblems {
		c.problems = append(c.problems, fmt.Sprintf(format, a...))
	}
}

// maxDepth stops checking absurdly deep values; the schema's depth is
// bounded when it is built.
const maxDepth = 32

// check validates v at path against s and returns v, converted when a
// text value stood for the expected scalar type.
func (c *checker) check(path string, s map[string]any, v any, depth int) any {
	if s == nil || depth > maxDepth {
		return v
	}
	if types := schemaTypes(s); len(types) > 0 {
		v = coerce(v, types)
		if !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
			c.add("%s must be %s, got %s", at(path), describeTypes(types), describeValue(v))
			return v
		}
	}
	c.checkEnum(path, s, v)
	switch x := v.(type) {
	case string:
		c.checkString(path, s, x)
	case json.Number, float64:
		c.checkNumber(path, s, toFloat(x))
	case []any:
		c.checkArray(path, s, x, depth)
	case map[string]any:
		c.checkObject(path, s, x, depth)
	}
	c.checkCombinators(path, s, v, depth)
	return v
}

func (c *checker) checkEnum(path string, s map[string]any, v any) {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 && !slices.ContainsFunc(enum, func(e any) bool { return sameValue(e, v) }) {
		c.add("%s must be one of %s, got %s", at(path), listValues(enum), describeValue(v))
	}
	if cv, ok := s["const"]; ok && !sameValue(cv, v) {
		c.add("%s must be %s, got %s", at(path), describeValue(cv), describeValue(v))
	}
}

func (c *checker) checkString(path string, s map[string]any, v string) {
	n := utf8.RuneCountInString(v)
	if m, ok := num(s["minLength"]); ok && float64(n) < m {
		c.add("%s must be at least %v characters long", at(path), m)
	}
	if m, ok := num(s["maxLength"]); ok && float64(n) > m {
		c.add("%s must be at most %v characters long", at(path), m)
	}
	if p, ok := s["pattern"].(string); ok && p != "" {
		if re, err := regexp.Compile(p); err == nil && !re.MatchString(v) {
			c.add("%s must match the pattern %s", at(path), p)
		}
	}
}

func (c *checker) checkNumber(path string, s map[string]any, v float64) {
	if m, ok := num(s["minimum"]); ok && v < m {
		c.add("%s must be at least %v, got %v", at(path), m, v)
	}
	if m, ok := num(s["maximum"]); ok && v > m {
		c.add("%s must be at most %v, got %v", at(path), m, v)
	}
	if m, ok := num(s["exclusiveMinimum"]); ok && v <= m {
		c.add("%s must be greater than %v, got %v", at(path), m, v)
	}
	if m, ok := num(s["exclusiveMaximum"]); ok && v >= m {
		c.add("%s must be less than %v, got %v", at(path), m, v)
	}
}

func (c *checker) checkArray(path string, s map[string]any, v []any, depth int) {
	if m, ok := num(s["minItems"]); ok && float64(len(v)) < m {
		c.add("%s must have at least %v items", at(path), m)
	}
	if m, ok := num(s["maxItems"]); ok && float64(len(v)) > m {
		c.add("%s must have at most %v items", at(path), m)
	}
	items, _ := s["items"].(map[string]any)
	for i := range v {
		v[i] = c.check(path+"["+strconv.Itoa(i)+"]", items, v[i], depth+1)
	}
}

func (c *checker) checkObject(path string, s map[string]any, v map[string]any, depth int) {
	props, _ := s["properties"].(map[string]any)
	for _, r := range stringList(s["required"]) {
		if _, ok := v[r]; ok {
			continue
		}
		if p, _ := props[r].(map[string]any); p != nil && p["default"] != nil {
			v[r] = p["default"]
			continue
		}
		c.add("missing required %s", at(join(path, r)))
	}
	for _, k := range sortedKeys(v) {
		if p, ok := props[k].(map[string]any); ok {
			v[k] = c.check(join(path, k), p, v[k], depth+1)
			continue
		}
		switch extra := s["additionalProperties"].(type) {
		case bool:
			if !extra {
				c.add("%s is not a known argument%s", at(join(path, k)), known(props))
			}
		case map[string]any:
			v[k] = c.check(join(path, k), extra, v[k], depth+1)
		}
	}
}

// checkCombinators handles allOf (every schema), anyOf and oneOf (at least
// one schema: being lenient about "exactly one" helps more than it hurts).
func (c *checker) checkCombinators(path string, s map[string]any, v any, depth int) {
	for _, sub := range schemaList(s["allOf"]) {
		c.check(path, sub, v, depth+1)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		subs := schemaList(s[key])
		if len(subs) == 0 {
			continue
		}
		matched := slices.ContainsFunc(subs, func(sub map[string]any) bool {
			trial := &checker{}
			trial.check(path, sub, cloneValue(v), depth+1)
			return len(trial.problems) == 0
		})
		if !matched {
			c.add("%s does not match any of the allowed shapes", at(path))
		}
	}
}
