package table

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxTextLen bounds a text value, in bytes: what a MySQL TEXT column holds.
const MaxTextLen = 65535

// datetimeLayouts are the forms a datetime value is accepted in.
var datetimeLayouts = []string{DatetimeLayout, time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"}

// Normalize turns a value given for a field of type t (a JSON value or CSV
// text) into the form it is stored in: string (text, and datetime as
// DatetimeLayout in UTC), int64, float64 or bool. nil stays nil. The error
// says what the value should look like.
func (t FieldType) Normalize(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if n, ok := v.(json.Number); ok {
		v = string(n)
	}
	switch t {
	case TypeText:
		return normalizeText(v)
	case TypeInteger:
		return normalizeInteger(v)
	case TypeNumber:
		return normalizeNumber(v)
	case TypeBoolean:
		return normalizeBoolean(v)
	case TypeDatetime:
		return normalizeDatetime(v)
	}
	return nil, errors.New("unknown field type " + string(t))
}

func normalizeText(v any) (any, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		s = strconv.FormatInt(x, 10)
	case bool:
		s = strconv.FormatBool(x)
	default:
		return nil, errors.New("must be text")
	}
	if len(s) > MaxTextLen || !utf8.ValidString(s) {
		return nil, errors.New("must be valid UTF-8 text of at most 65535 bytes")
	}
	return s, nil
}

func normalizeInteger(v any) (any, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, nil
		}
	}
	return nil, errors.New("must be a whole number")
}

func normalizeNumber(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int64:
		return float64(x), nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, nil
		}
	}
	return nil, errors.New("must be a number")
}

func normalizeBoolean(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case int64:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	case float64:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "1", "yes":
			return true, nil
		case "false", "0", "no":
			return false, nil
		}
	}
	return nil, errors.New("must be true or false")
}

func normalizeDatetime(v any) (any, error) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(DatetimeLayout), nil
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range datetimeLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC().Format(DatetimeLayout), nil
			}
		}
	}
	return nil, errors.New(`must be a date and time such as "2024-05-01 14:30:00" (UTC) or RFC 3339`)
}
