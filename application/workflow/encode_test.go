package workflow

import (
	"encoding/json"
	"math"
	"testing"
)

// TestMarshalDataIsEncodingJSON encodes maps of every shape, simple or
// not, and compares with encoding/json byte for byte.
func TestMarshalDataIsEncodingJSON(t *testing.T) {
	cases := []map[string]any{
		{},
		{"output": "Ada"},
		{"b": "x", "a": int64(-3), "c": true, "d": nil, "e": 2.0, "f": 1e20, "g": 0.0, "h": 7},
		{"html": "<b>&</b>"},
		{"quote": `say "hi"`, "slash": `a\b`},
		{"unicode": "Grüße ✓", "ctl": "a\nb\x01"},
		{"float": 1.5, "big": 1e21, "tiny": -2e-7, "neg0": math.Copysign(0, -1)},
		{"list": []any{"a", int64(1)}, "obj": map[string]any{"k": "v"}},
		{"number": json.Number("12.50")},
		{"ké": "key with accent", "": "empty key"},
	}
	for _, v := range cases {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalData(v)
		if err != nil || string(got) != string(want) {
			t.Errorf("marshalData(%v) = %s, %v; encoding/json gives %s", v, got, err, want)
		}
	}
	if _, err := marshalData(map[string]any{"nan": math.NaN()}); err == nil {
		t.Error("marshalData of NaN succeeded; encoding/json refuses it")
	}
}
