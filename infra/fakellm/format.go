package fakellm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Format is a request's response_format: the answer is a JSON object
// ("json_object"), or one valid for Schema ("json_schema").
type Format struct {
	Type   string
	Name   string
	Schema map[string]any
	Strict bool
}

type wireFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string         `json:"name"`
		Schema map[string]any `json:"schema"`
		Strict *bool          `json:"strict"`
	} `json:"json_schema"`
}

func (w *wireFormat) format() *Format {
	if w == nil || w.Type == "text" {
		return nil
	}
	f := &Format{Type: w.Type}
	if js := w.JSONSchema; js != nil {
		f.Name, f.Schema, f.Strict = js.Name, js.Schema, js.Strict != nil && *js.Strict
	}
	return f
}

var schemaName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// checkFormat returns the reason OpenAI would refuse the request's
// response_format, or "".
func checkFormat(w *wireFormat, msgs []wireMessage) string {
	if w == nil {
		return ""
	}
	switch w.Type {
	case "text":
		return ""
	case "json_object":
		for _, m := range msgs {
			if strings.Contains(strings.ToLower(m.text()), "json") {
				return ""
			}
		}
		return "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
	case "json_schema":
		js := w.JSONSchema
		if js == nil {
			return "Missing required parameter: 'response_format.json_schema'."
		}
		if !schemaName.MatchString(js.Name) {
			return fmt.Sprintf("Invalid 'response_format.json_schema.name': %q must match ^[a-zA-Z0-9_-]{1,64}$.", js.Name)
		}
		if why := checkSchema(js.Schema, js.Strict != nil && *js.Strict); why != "" {
			return fmt.Sprintf("Invalid schema for response_format '%s': %s", js.Name, why)
		}
		return ""
	}
	return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'text', 'json_object' and 'json_schema'. (response_format.type)", w.Type)
}

var schemaTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

// checkSchema refuses a schema whose root is not an object, an unknown
// type, and, when strict, an object that allows other properties or does
// not require all of its own.
func checkSchema(s map[string]any, strict bool) string {
	if s == nil {
		return "schema is required."
	}
	if typeOf(s) != "object" {
		return fmt.Sprintf("schema must be a JSON Schema of 'type: \"object\"', got 'type: %q'.", typeOf(s))
	}
	return checkNode(s, strict, "root")
}

func checkNode(s map[string]any, strict bool, at string) string {
	for _, t := range typeList(s) {
		if !schemaTypes[t] {
			return fmt.Sprintf("In context=(%s), %q is not a valid type.", at, t)
		}
	}
	props, _ := s["properties"].(map[string]any)
	if strict && typeOf(s) == "object" {
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			return fmt.Sprintf("In context=(%s), 'additionalProperties' is required to be supplied and to be false.", at)
		}
		required, _ := s["required"].([]any)
		for name := range props {
			if !containsString(required, name) {
				return fmt.Sprintf("In context=(%s), 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", at, name)
			}
		}
	}
	for name, p := range props {
		if ps, ok := p.(map[string]any); ok {
			if why := checkNode(ps, strict, at+", 'properties', '"+name+"'"); why != "" {
				return why
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		return checkNode(items, strict, at+", 'items'")
	}
	return ""
}

func containsString(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// typeList is a schema's type or types.
func typeList(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if str, ok := v.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// typeOf is a schema's first type other than null; "object" for a schema
// with properties and no type.
func typeOf(s map[string]any) string {
	for _, t := range typeList(s) {
		if t != "null" {
			return t
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	if len(typeList(s)) > 0 {
		return "null"
	}
	return ""
}

// formatted answers in the request's format: a JSON object valid for the
// schema, or {"echo": text} for json_object.
func formatted(f *Format, text string) string {
	var v any = map[string]any{"echo": text}
	if f.Type == "json_schema" {
		v = sample(f.Schema, f.Schema, 0)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
