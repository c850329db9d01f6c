// Package bots holds the HTTP handlers of bots and their variables: the
// Coze-compatible routes (/v1/bot/..., /v1/bots, /v1/variables) and the
// console's resource routes (/api/bots/...).
package bots

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// idText is an id as a request sends it, a JSON string or number, kept as
// text so that a wrong one is reported with the name of its field (see
// parse), which httpx.ID cannot do.
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
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[string]()}
	}
	return nil
}

// jsonKind names the kind of a JSON value that is neither string nor
// number.
func jsonKind(b []byte) string {
	switch {
	case len(b) > 0 && b[0] == '[':
		return "array"
	case len(b) > 0 && b[0] == '{':
		return "object"
	}
	return "bool"
}

// parse returns the id, or an error naming field; an absent optional id
// is 0.
func (t idText) parse(field string, required bool) (int64, error) {
	if t == "" && !required {
		return 0, nil
	}
	return httpx.ParseID(field, string(t))
}

// bindStrict decodes a JSON object body into dst like httpx.BindJSON and
// also refuses fields neither dst nor extra has, so that a misspelt field
// of a whole-configuration write is reported instead of silently reset.
// An empty body is refused.
func bindStrict(c *app.RequestContext, dst any, extra ...string) error {
	body := c.Request.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return errs.Invalid("body", "is required: a JSON object")
	}
	if err := httpx.BindJSON(c, dst); err != nil {
		return err
	}
	return httpx.UnknownField(body, dst, extra...)
}

// queryList splits a comma-joined query value, dropping empty items.
func queryList(c *app.RequestContext, name string) []string {
	var out []string
	for _, s := range strings.Split(string(c.Query(name)), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
