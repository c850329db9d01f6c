package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// BindJSON decodes the request body into dst. An empty body leaves dst as
// is; malformed JSON, text that is not UTF-8 (CheckJSONText) and wrong
// types fail with ErrInvalid naming the field.
func BindJSON(c *app.RequestContext, dst any) error {
	body := c.Request.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := CheckJSONText(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	return nil
}

func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		want := describeType(typeErr.Type.String())
		if k := typeErr.Type.Kind(); k == reflect.Struct || k == reflect.Map {
			want = "an object" // not the Go type's name
		}
		return errs.Invalid(field, "must be %s, got %s", want, typeErr.Value)
	case errors.As(err, &syntaxErr):
		return errs.Invalid("body", "is not valid JSON (at byte %d): %v", syntaxErr.Offset, syntaxErr)
	case errors.Is(err, errors.ErrUnsupported):
		return errs.Invalid("body", "%v", err)
	}
	return errs.Invalid("body", "is not valid JSON: %v", err)
}

func describeType(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string", t == "httpx.ID":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "map"), strings.Contains(t, "struct"):
		return "an object"
	}
	return "of type " + t
}

// ID is an int64 identifier that travels as a JSON string, as Coze SDKs
// expect, and is also accepted as a JSON number.
type ID int64

// MarshalJSON writes the id as a string.
func (id ID) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(id), 10) + `"`), nil
}

// UnmarshalJSON reads "123" or 123.
func (id *ID) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*id = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("must be a numeric id, got %s: %w", b, errs.ErrInvalid)
	}
	*id = ID(n)
	return nil
}

// ParseID parses a path or query id, naming the field when it is wrong.
func ParseID(field, s string) (int64, error) {
	if s == "" {
		return 0, errs.Invalid(field, "is required")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errs.Invalid(field, "must be a numeric id, got %q", s)
	}
	return n, nil
}

// PathID parses the path parameter name as an id.
func PathID(c *app.RequestContext, name string) (int64, error) {
	return ParseID(name, c.Param(name))
}

// QueryID parses the query parameter name as an id; required or not.
func QueryID(c *app.RequestContext, name string, required bool) (int64, error) {
	v := string(c.Query(name))
	if v == "" && !required {
		return 0, nil
	}
	return ParseID(name, v)
}

// Paging reads page_num (or page_index) and page_size from the query, with
// defaults and bounds, naming the field when it is wrong.
func Paging(c *app.RequestContext, defaultSize, maxSize int) (identity.Page, error) {
	num, err := queryInt(c, "page_num", 1)
	if err != nil {
		return identity.Page{}, err
	}
	if idx := string(c.Query("page_index")); idx != "" {
		if num, err = queryInt(c, "page_index", 1); err != nil {
			return identity.Page{}, err
		}
	}
	size, err := queryInt(c, "page_size", defaultSize)
	if err != nil {
		return identity.Page{}, err
	}
	if num < 1 {
		return identity.Page{}, errs.Invalid("page_num", "must be 1 or more, got %d", num)
	}
	if size < 1 || size > maxSize {
		return identity.Page{}, errs.Invalid("page_size", "must be between 1 and %d, got %d", maxSize, size)
	}
	if last := math.MaxInt / size; num > last { // the offset, (num-1)*size, must not wrap around
		return identity.Page{}, errs.Invalid("page_num", "must be at most %d with page_size %d, got %d", last, size, num)
	}
	return identity.Page{Number: num, Size: size}, nil
}

func queryInt(c *app.RequestContext, name string, def int) (int, error) {
	v := string(c.Query(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errs.Invalid(name, "must be an integer, got %q", v)
	}
	return n, nil
}

// SetPrincipal stores the authenticated caller.
func SetPrincipal(c *app.RequestContext, p identity.Principal) { c.Set(principalKey, p) }

// Caller returns the authenticated caller; the auth middleware guarantees
// one on every protected route.
func Caller(c *app.RequestContext) identity.Principal {
	v, _ := c.Get(principalKey)
	p, _ := v.(identity.Principal)
	return p
}

// Unix returns t as Unix seconds, 0 for the zero time.
func Unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// UnixPtr returns *t as Unix seconds, 0 for nil.
func UnixPtr(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return Unix(*t)
}

// OptionalID writes an id that may be absent: "" for 0, as Coze does (a
// message made outside a chat has chat_id "").
func OptionalID(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// MetaData never lets meta_data be null: Coze's SDKs expect an object.
func MetaData(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// NonNil never lets a list be null: clients expect an array.
func NonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// QueryBool reads the query parameter name as true or false (also 1 or
// 0); absent is false. Anything else is errs.ErrInvalid naming it.
func QueryBool(c *app.RequestContext, name string) (bool, error) {
	switch v := string(c.Query(name)); v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	default:
		return false, errs.Invalid(name, "must be true or false, got %q", v)
	}
}
