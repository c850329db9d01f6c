package workflow

import (
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Where Coze's conversions apply besides parameters and outputs
// (coerce.go): the inputs a node declares a type for, the answers to
// input nodes, and the start node's defaults.

// typedInput converts or checks an input against its declared type: with
// Coze's conversions (what cannot be converted is null and a warning in
// warns; file URLs without Coze's x-wf-file_name) or strictly.
func (f *frame) typedInput(want Schema, v any, name string, warns *[]string) (any, error) {
	if !f.run.coze {
		return conform(want, v, false)
	}
	v = coerce(want, normalize(v), name, func(w string) { *warns = append(*warns, "warning: input "+w) })
	return f.run.files.strip(want, v), nil
}

// fillsZero reports whether a node of type typ reads a null typed input
// as its type's zero value, as Coze's nodes do (its PreFillZero); start,
// condition, sub-workflow, input, aggregate and assign nodes read null.
func fillsZero(typ string) bool {
	switch typ {
	case "start", "condition", "sub_workflow", "input", "variable_aggregate", "variable_assign", "set_variable":
		return false
	}
	return true
}

// zeroFilled is v with null replaced by the zero value of s: "" for text
// and files, 0, false; objects and arrays stay null, and so do the null
// elements of an array of objects or arrays, as in Coze.
func zeroFilled(s Schema, v any) any {
	if v == nil {
		return zeroOf(s)
	}
	if a, ok := v.([]any); ok && s.Type == TypeArray && s.Items != nil {
		for i := range a {
			if a[i] == nil {
				a[i] = zeroOf(*s.Items)
			}
		}
	}
	return v
}

// zeroOf is Coze's zero value of a type.
func zeroOf(s Schema) any {
	switch s.Type {
	case TypeString, TypeFile:
		return ""
	case TypeInteger:
		return int64(0)
	case TypeNumber:
		return float64(0)
	case TypeBoolean:
		return false
	}
	return nil
}

// joinLogs puts the input warnings before what the node logged.
func joinLogs(warns []string, logs string) string {
	if len(warns) == 0 {
		return logs
	}
	if logs == "" {
		return strings.Join(warns, "\n")
	}
	return strings.Join(warns, "\n") + "\n" + logs
}

// cozeFormValues reads the answer to an input node as Coze does: a JSON
// object with every required field; fields the form does not declare are
// dropped and the values are converted afterwards, with the node's
// outputs.
func cozeFormValues(fields []Param, answer string) (map[string]any, error) {
	v, err := decodeValue([]byte(answer))
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, errs.Invalid("resume_data", "must be a JSON object of the form's fields")
	}
	out := make(map[string]any, len(fields))
	for _, p := range fields {
		x, has := obj[p.Name]
		if (!has || x == nil) && p.Required {
			return nil, errs.Invalid("resume_data", "%s is required (%s)", p.Name, p.Schema)
		}
		out[p.Name] = x
	}
	return out, nil
}

// checkDefaults checks the start node's defaults: each must convert to
// its parameter's type (Coze refuses such a workflow when it builds it).
func (c *checker) checkDefaults(field string, params []Param) {
	for i, p := range params {
		if p.Default == nil {
			continue
		}
		if _, warns := Coerce(p.Schema, p.Default); len(warns) > 0 {
			c.fail(field+"["+strconv.Itoa(i)+"].default", "must be a %s: %s", p.Schema, strings.Join(warns, "; "))
		}
	}
}

// withCozeDefaults sets each parameter that is null, "", [] or {} after
// Coze's conversions to its default, as Coze's entry node does.
func withCozeDefaults(params []Param, out map[string]any) {
	for _, p := range params {
		if p.Default != nil && isEmpty(out[p.Name]) {
			d, _ := Coerce(p.Schema, p.Default)
			out[p.Name] = d
		}
	}
}
