// Package datasets serves Coze's knowledge OpenAPI, the routes @coze/api's
// datasets, datasets.documents and datasets.images call: knowledge bases
// under /v1/datasets (create, list, update, delete, indexing progress,
// image listing and captions) and documents under
// /open_api/knowledge/document (create, list, update, delete). Requests
// take ids as JSON strings or numbers (the SDK sends Agw-Js-Conv: str and
// strings); answers always carry ids as strings.
package datasets

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// idText is an id as a request sends it, a JSON string or number, kept as
// text so that a wrong one is reported with the name of its field.
type idText string

// UnmarshalJSON accepts a string, a number or null.
func (t *idText) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		*t = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = idText(strings.TrimSpace(s))
	case len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')):
		*t = idText(b)
	default:
		return &json.UnmarshalTypeError{Value: "non-id", Type: reflect.TypeFor[string]()}
	}
	return nil
}

// parse returns the id, or an error naming field; an absent optional id
// is 0.
func (t idText) parse(field string, required bool) (int64, error) {
	if t == "" && !required {
		return 0, nil
	}
	return httpx.ParseID(field, string(t))
}

// parseIDs parses a list of ids, naming the item that is wrong.
func parseIDs(field string, in []idText) ([]int64, error) {
	out := make([]int64, len(in))
	for i, t := range in {
		id, err := t.parse(field+"["+strconv.Itoa(i)+"]", true)
		if err != nil {
			return nil, err
		}
		out[i] = id
	}
	return out, nil
}

// renameField rewrites the field an error of the knowledge service names
// into the field of Coze's request that carried it (documents[0].url is
// document_bases[0].source_info.web_url here), so the message points at
// what the caller sent.
func renameField(err error, rename func(string) string) error {
	var fe *errs.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	return errs.Invalid(rename(fe.Field), "%s", fe.Reason)
}
