package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Input is one value a node reads. Exactly one of its sources is set:
//
//   - a literal: {"value": 42}
//   - a reference to an earlier node's output: {"ref": {"node": "start", "path": "query"}}
//   - a bot variable of the end user: {"variable": "city"}, or a value of
//     the run: {"variable": "sys.user_id"} (also sys.bot_id, sys.workflow_id,
//     sys.execute_id, sys.connector_id)
//   - a template over earlier outputs: {"template": "Hello {{start.name}}"}
//
// Type optionally declares what the node expects; a reference of another
// type is reported by validation, and a value of another type at run time
// fails the node. With compat coze, values are converted to it instead
// (coerce.go).
type Input struct {
	Schema
	Value    any     `json:"-"`
	HasValue bool    `json:"-"`
	Ref      *Ref    `json:"ref,omitempty"`
	Variable string  `json:"variable,omitempty"`
	Template *string `json:"template,omitempty"`
	// Object assembles an object whose fields are inputs of their own.
	Object map[string]Input `json:"object,omitempty"`
}

// ObjectInput returns an input assembling an object from fields.
func ObjectInput(fields map[string]Input) Input { return Input{Object: fields} }

// Literal returns an input holding v.
func Literal(v any) Input { return Input{Value: v, HasValue: true} }

// RefTo returns an input reading path of node's outputs.
func RefTo(node, path string) Input { return Input{Ref: &Ref{Node: node, Path: path}} }

// Variable returns an input reading a bot variable (or sys.* value).
func VariableInput(keyword string) Input { return Input{Variable: keyword} }

// Template returns an input rendering text over earlier outputs.
func TemplateInput(text string) Input { return Input{Template: &text} }

// inputWire is Input as it travels, with the literal kept raw so that a
// literal null or false can be told from no literal at all.
type inputWire struct {
	Schema
	Value    json.RawMessage  `json:"value,omitempty"`
	Ref      *Ref             `json:"ref,omitempty"`
	Variable string           `json:"variable,omitempty"`
	Template *string          `json:"template,omitempty"`
	Object   map[string]Input `json:"object,omitempty"`
}

// UnmarshalJSON reads an input, strictly.
func (in *Input) UnmarshalJSON(b []byte) error {
	var w inputWire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	*in = Input{Schema: w.Schema, Ref: w.Ref, Variable: w.Variable, Template: w.Template, Object: w.Object}
	if w.Value != nil {
		v, err := decodeValue(w.Value)
		if err != nil {
			return err
		}
		in.Value, in.HasValue = v, true
	}
	return nil
}

// MarshalJSON writes an input with its literal, if any.
func (in Input) MarshalJSON() ([]byte, error) {
	w := inputWire{Schema: in.Schema, Ref: in.Ref, Variable: in.Variable, Template: in.Template, Object: in.Object}
	if in.HasValue {
		b, err := json.Marshal(in.Value)
		if err != nil {
			return nil, err
		}
		w.Value = b
		if string(b) == "null" {
			// omitempty would drop a RawMessage "null"; keep it explicit.
			return marshalNullLiteral(w)
		}
	}
	return json.Marshal(w)
}

func marshalNullLiteral(w inputWire) ([]byte, error) {
	w.Value = nil
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	if string(b) == "{}" {
		return []byte(`{"value":null}`), nil
	}
	return append(append([]byte(`{"value":null,`), b[1:len(b)-1]...), '}'), nil
}

// sources counts how many sources the input sets; exactly one is valid.
func (in *Input) sources() int {
	n := 0
	for _, set := range []bool{in.HasValue, in.Ref != nil, in.Variable != "", in.Template != nil, in.Object != nil} {
		if set {
			n++
		}
	}
	return n
}

// decodeValue reads a JSON value with numbers as int64 or float64.
func decodeValue(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

func asError(err error, target any) bool { return errors.As(err, target) }
