package httpx

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/domain/errs"
)

// BindJSONStrict decodes the request body into dst like BindJSON and also
// refuses a field dst does not have, so that a misspelt field of an edit
// ("timezone" for "time_zone") is reported instead of silently ignored.
func BindJSONStrict(c *app.RequestContext, dst any) error {
	if err := BindJSON(c, dst); err != nil {
		return err
	}
	return UnknownField(c.Request.Body(), dst)
}

// UnknownField reports the first field of body, at any depth, that dst
// (a pointer to a struct) does not have, as errs.ErrInvalid naming it;
// extra names top-level fields that are allowed anyway. A body that does
// not decode is left to BindJSON.
func UnknownField(body []byte, dst any, extra ...string) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if len(extra) > 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) == nil {
			for _, k := range extra {
				delete(obj, k)
			}
			body, _ = json.Marshal(obj)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(reflect.New(reflect.TypeOf(dst).Elem()).Interface())
	if err == nil {
		return nil
	}
	name, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return nil // BindJSON accepted the body; only unknown fields matter here
	}
	return errs.Invalid(strings.Trim(name, `"`), "is not a known field; see /openapi.yaml")
}
