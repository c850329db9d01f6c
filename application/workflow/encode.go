package workflow

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// marshalData writes a node's inputs or outputs as encoding/json would,
// byte for byte: directly for the common shape (a few keys of plain text,
// whole numbers, booleans and nulls), through encoding/json for anything
// else. A run of simple nodes spends as long encoding their records with
// encoding/json as running them.
func marshalData(v map[string]any) ([]byte, error) {
	if b, ok := appendFlat(make([]byte, 0, 64), v); ok {
		return b, nil
	}
	return json.Marshal(v)
}

// appendFlat appends v as a JSON object when every key and value has the
// simple shape; ok is false otherwise.
func appendFlat(b []byte, v map[string]any) ([]byte, bool) {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendPlain(b, k); !ok {
			return nil, false
		}
		b = append(b, ':')
		if b, ok = appendScalar(b, v[k]); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendScalar appends a string, whole number, boolean or null.
func appendScalar(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendPlain(b, x)
	case bool:
		return strconv.AppendBool(b, x), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case float64:
		// encoding/json writes whole numbers below 1e21 in 'f' form.
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			return strconv.AppendFloat(b, x, 'f', -1, 64), true
		}
	}
	return nil, false
}

// appendPlain appends s quoted when no byte of it needs escaping by
// encoding/json (which also escapes <, > and &); ok is false otherwise.
func appendPlain(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return nil, false
		}
	}
	return append(append(append(b, '"'), s...), '"'), true
}
