package tablestore

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/table"
)

// maxCell bounds a text value shown to the model, in characters.
const maxCell = 2000

// outValue converts a value read from the database: as the field's type
// when the column is a field, else by the database's column type.
func outValue(typ table.FieldType, dbType string, v any) any {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return nil
	}
	if typ == "" {
		typ = typeOfDB(dbType, v)
	}
	switch typ {
	case table.TypeBoolean:
		return truthy(v)
	case table.TypeInteger:
		if n, ok := toInt(v); ok {
			return n
		}
	case table.TypeNumber:
		if f, ok := toFloat(v); ok {
			return f
		}
	case table.TypeDatetime:
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(table.DatetimeLayout)
		}
	}
	return text(v)
}

// typeOfDB guesses the type of a computed column.
func typeOfDB(dbType string, v any) table.FieldType {
	switch t := strings.ToUpper(dbType); {
	case strings.Contains(t, "INT"):
		return table.TypeInteger
	case strings.Contains(t, "DECIMAL"), strings.Contains(t, "DOUBLE"), strings.Contains(t, "FLOAT"), t == "REAL":
		return table.TypeNumber
	case strings.Contains(t, "DATE") || strings.Contains(t, "TIME"):
		return table.TypeDatetime
	}
	switch v.(type) {
	case int64:
		return table.TypeInteger
	case float64:
		return table.TypeNumber
	case time.Time:
		return table.TypeDatetime
	}
	return table.TypeText
}

func truthy(v any) any {
	switch x := v.(type) {
	case int64:
		return x != 0
	case string:
		return x != "0" && x != ""
	case bool:
		return x
	}
	return v
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), x == float64(int64(x))
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// text shows a value as text, cut at maxCell characters.
func text(v any) any {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case time.Time:
		return x.UTC().Format(table.DatetimeLayout)
	default:
		return v
	}
	if utf8.RuneCountInString(s) > maxCell {
		r := []rune(s)
		return string(r[:maxCell]) + "…[cut]"
	}
	return s
}

// storeValue converts a normalized field value (see table.FieldType.
// Normalize) to what the database stores: booleans as 0 or 1.
func storeValue(v any) any {
	if b, ok := v.(bool); ok {
		if b {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

// rowValue converts a stored value for a builder: like outValue, without
// cutting text.
func rowValue(typ table.FieldType, v any) any {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return nil
	}
	switch typ {
	case table.TypeBoolean:
		return truthy(v)
	case table.TypeInteger:
		if n, ok := toInt(v); ok {
			return n
		}
	case table.TypeNumber:
		if f, ok := toFloat(v); ok {
			return f
		}
	}
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format(table.DatetimeLayout)
	}
	return v
}
