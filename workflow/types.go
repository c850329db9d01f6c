package workflow

import (
	"strconv"
	"strings"
)

// Type is the type of a value flowing between nodes.
type Type string

// The types of the DSL. A file is a string holding its URL.
const (
	TypeAny     Type = "" // unknown until run time; compatible with every type
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeObject  Type = "object"
	TypeArray   Type = "array"
	TypeFile    Type = "file"
)

// Types lists the type names a definition may use.
var Types = []Type{TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeObject, TypeArray, TypeFile}

// Schema is a type with, for arrays, the type of the items and, for
// objects, the properties (optional: an object without them holds
// anything).
type Schema struct {
	Type       Type    `json:"type,omitempty"`
	Items      *Schema `json:"items,omitempty"`
	Properties []Param `json:"properties,omitempty"`
}

// Param is a named, typed value: an output of a node, a parameter of the
// start node, a property of an object.
type Param struct {
	Name string `json:"name"`
	Schema
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description,omitempty"`
	// Default is a start node parameter's value when a run gives none, or
	// gives "", [] or {}.
	Default any `json:"default,omitempty"`
}

// S returns a schema of a scalar type.
func S(t Type) Schema { return Schema{Type: t} }

// ArrayOf returns the schema of an array of items.
func ArrayOf(items Schema) Schema { return Schema{Type: TypeArray, Items: &items} }

// P returns a param of a scalar type.
func P(name string, t Type) Param { return Param{Name: name, Schema: Schema{Type: t}} }

// String renders the schema as "array<string>" or "object".
func (s Schema) String() string {
	switch {
	case s.Type == TypeAny:
		return "any"
	case s.Type == TypeArray && s.Items != nil:
		return "array<" + s.Items.String() + ">"
	}
	return string(s.Type)
}

// known reports whether t is one of Types (or TypeAny).
func (t Type) known() bool {
	if t == TypeAny {
		return true
	}
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// accepts reports whether a value of schema got may be used where want is
// expected. Unknown types accept and are accepted; an integer is a number;
// a file is a string and a string may name a file.
func (want Schema) accepts(got Schema) bool {
	if want.Type == TypeAny || got.Type == TypeAny {
		return true
	}
	if want.Type != got.Type {
		switch {
		case want.Type == TypeNumber && got.Type == TypeInteger:
			return true
		case isStringLike(want.Type) && isStringLike(got.Type):
			return true
		}
		return false
	}
	if want.Type == TypeArray && want.Items != nil && got.Items != nil {
		return want.Items.accepts(*got.Items)
	}
	return true
}

func isStringLike(t Type) bool { return t == TypeString || t == TypeFile }

// find returns the param named name.
func findParam(params []Param, name string) (Param, bool) {
	for _, p := range params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// splitPath splits a dotted path; "" has no segments.
func splitPath(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

// schemaAt returns the schema at path inside outputs. A path into a value
// of unknown shape (an object without properties, an unknown type) is of
// unknown type. ok is false when the path cannot exist.
func schemaAt(outputs []Param, path []string) (Schema, string, bool) {
	if len(path) == 0 {
		return Schema{Type: TypeObject, Properties: outputs}, "", true
	}
	p, found := findParam(outputs, path[0])
	if !found {
		return Schema{}, "no output " + strconv.Quote(path[0]), false
	}
	return p.Schema.at(path[1:])
}

func (s Schema) at(path []string) (Schema, string, bool) {
	if len(path) == 0 {
		return s, "", true
	}
	switch s.Type {
	case TypeAny:
		return Schema{}, "", true
	case TypeObject:
		if len(s.Properties) == 0 {
			return Schema{}, "", true
		}
		p, found := findParam(s.Properties, path[0])
		if !found {
			return Schema{}, "no property " + strconv.Quote(path[0]), false
		}
		return p.Schema.at(path[1:])
	case TypeArray:
		if _, err := strconv.Atoi(path[0]); err != nil {
			return Schema{}, strconv.Quote(path[0]) + " is not an index of an array", false
		}
		if s.Items == nil {
			return Schema{}, "", true
		}
		return s.Items.at(path[1:])
	}
	return Schema{}, "a " + string(s.Type) + " has no " + strconv.Quote(path[0]), false
}
