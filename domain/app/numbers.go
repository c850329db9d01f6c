package app

import "encoding/json"

// Numbers turns the json.Numbers of a value decoded with UseNumber into
// int64 (whole numbers) or float64, in place, and returns it: the number
// types app variable values have.
func Numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = Numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = Numbers(x[k])
		}
	}
	return v
}
