package app

import (
	"strings"
	"testing"
)

func TestCheckValue(t *testing.T) {
	cases := []struct {
		typ  string
		v    any
		fail string
	}{
		{TypeString, "x", ""}, {TypeString, int64(1), "is not a string"},
		{TypeInteger, int64(3), ""}, {TypeInteger, 3.0, ""}, {TypeInteger, 3.5, "is not a integer"},
		{TypeNumber, 3.5, ""}, {TypeNumber, "3.5", "is not a number"},
		{TypeBoolean, true, ""}, {TypeObject, map[string]any{}, ""}, {TypeArray, []any{1}, ""}, {TypeArray, "[]", "is not a array"},
		{TypeString, nil, ""}, {"text", nil, "type must be"}, {TypeString, strings.Repeat("x", MaxValueBytes), "larger than"},
	}
	for _, c := range cases {
		err := CheckValue(c.typ, c.v)
		if (c.fail == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.fail) {
			t.Errorf("CheckValue(%s, %v) = %v, want %q", c.typ, c.v, err, c.fail)
		}
	}
}

func TestResolveTakesStoredValuesOfDeclaredVariables(t *testing.T) {
	a := &App{Variables: []Variable{{Name: "a", Type: TypeString, Default: "d"}, {Name: "b", Type: TypeInteger}}}
	got := a.Resolve(map[string]any{"b": int64(2), "gone": true})
	if len(got) != 2 || got["a"] != "d" || got["b"] != int64(2) {
		t.Fatalf("Resolve = %v", got)
	}
}

// TestResolveZeroValues: a variable with neither a value nor a default
// reads as Coze's zero value of its type.
func TestResolveZeroValues(t *testing.T) {
	a := &App{Variables: []Variable{{Name: "s", Type: TypeString}, {Name: "i", Type: TypeInteger}, {Name: "n", Type: TypeNumber},
		{Name: "b", Type: TypeBoolean}, {Name: "o", Type: TypeObject}, {Name: "l", Type: TypeArray}, {Name: "d", Type: TypeBoolean, Default: true}}}
	got := a.Resolve(map[string]any{"l": []any{"x"}})
	if got["s"] != "" || got["i"] != int64(0) || got["n"] != float64(0) || got["b"] != false || got["o"] != nil || got["d"] != true ||
		len(got["l"].([]any)) != 1 || len(got) != 7 {
		t.Fatalf("Resolve = %#v", got)
	}
}
