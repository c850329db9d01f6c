package workflow

import (
	"reflect"
	"strings"
	"testing"
)

// The rules below pin Coze Studio's conversions as its
// backend/domain/workflow/internal/nodes/convert.go does them (read for
// behaviour; the function named in each group is where).
func TestCoerceRules(t *testing.T) {
	obj := Schema{Type: TypeObject, Properties: []Param{P("n", TypeInteger), P("s", TypeString)}}
	cases := []struct {
		name string
		s    Schema
		in   any
		want any
		warn string // a substring of the one warning; "" for none
	}{
		// null is valid for every type (convert: "nil is valid for ALL types").
		{"null string", S(TypeString), nil, nil, ""},
		{"null object", obj, nil, nil, ""},
		// convertToString: numbers in their shortest form, booleans as
		// true/false, objects and arrays as JSON text.
		{"string kept", S(TypeString), "x", "x", ""},
		{"integer to string", S(TypeString), 42, "42", ""},
		{"float to string", S(TypeString), 1.5, "1.5", ""},
		{"big float to string, no exponent", S(TypeString), 1e21, "1000000000000000000000", ""},
		{"bool to string", S(TypeString), true, "true", ""},
		{"array to JSON text", S(TypeString), []any{1, "a"}, `[1,"a"]`, ""},
		{"object to JSON text, html kept", S(TypeString), map[string]any{"a": "<b>&"}, `{"a":"<b>&"}`, ""},
		{"file takes text", S(TypeFile), "https://x/y.png", "https://x/y.png", ""},
		// convertToInt64: floats truncated, text parsed as a base-10
		// integer only; booleans refused.
		{"float truncated", S(TypeInteger), 3.9, int64(3), ""},
		{"negative float truncated", S(TypeInteger), -2.7, int64(-2), ""},
		{"text to integer", S(TypeInteger), "12", int64(12), ""},
		{"decimal text not an integer", S(TypeInteger), "1.5", nil, `cannot convert string "1.5" to integer`},
		{"padded text not an integer", S(TypeInteger), " 12", nil, "to integer"},
		{"word not an integer", S(TypeInteger), "twelve", nil, `"twelve" to integer`},
		{"bool not an integer", S(TypeInteger), true, nil, "boolean true to integer"},
		{"object not an integer", S(TypeInteger), map[string]any{}, nil, "to integer"},
		// convertToFloat64: integers widen, text parsed (exponents too).
		{"integer to number", S(TypeNumber), 7, 7.0, ""},
		{"text to number", S(TypeNumber), "2.5", 2.5, ""},
		{"exponent text to number", S(TypeNumber), "1e3", 1000.0, ""},
		{"word not a number", S(TypeNumber), "abc", nil, "to number"},
		{"bool not a number", S(TypeNumber), false, nil, "to number"},
		// convertToBool: strconv.ParseBool's spellings only; numbers refused.
		{"True", S(TypeBoolean), "True", true, ""},
		{"TRUE", S(TypeBoolean), "TRUE", true, ""},
		{"t", S(TypeBoolean), "t", true, ""},
		{"1 text", S(TypeBoolean), "1", true, ""},
		{"0 text", S(TypeBoolean), "0", false, ""},
		{"False", S(TypeBoolean), "False", false, ""},
		{"yes refused", S(TypeBoolean), "yes", nil, `"yes" to boolean`},
		{"number 1 refused", S(TypeBoolean), 1, nil, "integer 1 to boolean"},
		// convertToObject: JSON text parsed; fields converted one by one,
		// a failed field null inside the object; undeclared fields kept.
		{"object text", obj, `{"n":"5","s":6,"x":true}`, map[string]any{"n": int64(5), "s": "6", "x": true}, ""},
		{"field fails", obj, map[string]any{"n": "five", "s": "a"}, map[string]any{"n": nil, "s": "a"}, `value.n: cannot convert string "five"`},
		{"missing field null", obj, map[string]any{"s": "a"}, map[string]any{"n": nil, "s": "a"}, ""},
		{"bad text not an object", obj, "{oops", nil, "is not a JSON object"},
		{"array text not an object", obj, "[1]", nil, "is not a JSON object"},
		{"number not an object", obj, 3, nil, "cannot convert integer to object"},
		{"null text is null", obj, "null", nil, ""},
		// convertToArray: JSON text parsed; elements converted one by one,
		// failed scalars left out, failed objects kept; not an array: [].
		{"array text", ArrayOf(S(TypeInteger)), "[1,\"2\",3.5]", []any{int64(1), int64(2), int64(3)}, ""},
		{"failed element left out", ArrayOf(S(TypeInteger)), []any{1, "two", 3}, []any{int64(1), int64(3)}, `value.1: cannot convert string "two"`},
		{"failed object element kept", ArrayOf(obj), []any{map[string]any{"n": "x"}}, []any{map[string]any{"n": nil, "s": nil}}, "value.0.n"},
		{"elements to text", ArrayOf(S(TypeString)), []any{1, true, map[string]any{"a": 1}}, []any{"1", "true", `{"a":1}`}, ""},
		{"bad text empty array", ArrayOf(S(TypeString)), "nope", []any{}, "is not a JSON array"},
		{"number empty array", ArrayOf(S(TypeString)), 5, []any{}, "cannot convert integer to array"},
		{"object empty array", ArrayOf(S(TypeString)), map[string]any{"a": 1}, []any{}, "to array"},
		{"untyped items kept", Schema{Type: TypeArray}, []any{1, "a"}, []any{int64(1), "a"}, ""},
		{"nested arrays", ArrayOf(ArrayOf(S(TypeNumber))), `[[1],["2"]]`, []any{[]any{1.0}, []any{2.0}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, warns := Coerce(tc.s, tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Coerce(%s, %#v) = %#v, want %#v", tc.s, tc.in, got, tc.want)
			}
			switch {
			case tc.warn == "" && len(warns) > 0:
				t.Fatalf("unexpected warnings %q", warns)
			case tc.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tc.warn)):
				t.Fatalf("warnings = %q, want one containing %q", warns, tc.warn)
			}
		})
	}
}

// Coze's entry node (nodes/entry/entry.go) takes a parameter's default
// when the run gives none or gives "", [] or {}; its defaults are
// converted to the parameter's type when the workflow is built.
func TestCozeRunParamsDefaults(t *testing.T) {
	c := &Compiled{coze: true, params: []Param{
		{Name: "s", Schema: S(TypeString), Default: "dflt"},
		{Name: "a", Schema: ArrayOf(S(TypeInteger)), Default: []any{"1", 2}},
		{Name: "o", Schema: Schema{Type: TypeObject}, Default: `{"k":1}`},
		{Name: "n", Schema: S(TypeInteger), Default: "7"},
		{Name: "b", Schema: S(TypeBoolean)},
	}}
	cases := []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{"absent", map[string]any{}, map[string]any{"s": "dflt", "a": []any{int64(1), int64(2)}, "o": map[string]any{"k": int64(1)}, "n": int64(7), "b": nil}},
		{"empty values", map[string]any{"s": "", "a": []any{}, "o": map[string]any{}, "b": "True"},
			map[string]any{"s": "dflt", "a": []any{int64(1), int64(2)}, "o": map[string]any{"k": int64(1)}, "n": int64(7), "b": true}},
		{"empty after conversion", map[string]any{"a": "[]", "o": "{}", "n": 3}, map[string]any{"s": "dflt", "a": []any{int64(1), int64(2)}, "o": map[string]any{"k": int64(1)}, "n": int64(3), "b": nil}},
		{"given", map[string]any{"s": 5, "a": `[9]`, "o": map[string]any{"z": 1}, "n": "4"},
			map[string]any{"s": "5", "a": []any{int64(9)}, "o": map[string]any{"z": int64(1)}, "n": int64(4), "b": nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, warns, err := c.runParams(tc.in)
			if err != nil || len(warns) > 0 {
				t.Fatalf("runParams: %v %q", err, warns)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// A required parameter stays required: Coze answers a missing one with
// ErrMissingRequiredParam, not a warning.
func TestCozeRunParamsRequired(t *testing.T) {
	c := &Compiled{coze: true, params: []Param{{Name: "q", Schema: S(TypeString), Required: true}}}
	if _, _, err := c.runParams(map[string]any{}); err == nil || !strings.Contains(err.Error(), "parameters.q") {
		t.Fatalf("err = %v", err)
	}
	got, warns, err := c.runParams(map[string]any{"q": []any{1}})
	if err != nil || got["q"] != "[1]" || len(warns) != 0 {
		t.Fatalf("got %v %q %v", got, warns, err)
	}
}

// Coze's input receiver (nodes/receiver/input_receiver.go) reads the
// answer as a JSON object, drops undeclared fields and converts the rest;
// a required field must be there.
func TestCozeFormValues(t *testing.T) {
	fields := []Param{{Name: "age", Schema: S(TypeInteger), Required: true}, P("tags", TypeArray)}
	got, err := cozeFormValues(fields, `{"age":"41","x":1}`)
	if err != nil || !reflect.DeepEqual(got, map[string]any{"age": "41", "tags": nil}) {
		t.Fatalf("got %#v %v", got, err)
	}
	for _, bad := range []string{`{"tags":[]}`, `{"age":null}`, `[1]`, `nope`} {
		if _, err := cozeFormValues(fields, bad); err == nil || !strings.Contains(err.Error(), "resume_data") {
			t.Errorf("answer %s: err = %v", bad, err)
		}
	}
	in := &Interrupt{Kind: InterruptInput, Fields: fields, Coze: true}
	if err := in.CheckAnswer(`{"age":"forty"}`); err != nil {
		t.Fatalf("a Coze form takes any value and converts it: %v", err)
	}
	in.Coze = false
	if err := in.CheckAnswer(`{"age":"forty"}`); err == nil {
		t.Fatal("a native form checks the types")
	}
}
