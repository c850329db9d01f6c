// Package plugins holds the HTTP handlers of plugins: the console's
// resource routes (/api/plugins/...) and the administrators' view and
// switches (/api/admin/plugins/...).
package plugins

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// AuthRequest is a plugin's auth as a builder sends it. Secrets (key,
// token, password, client_secret) are write-only.
type AuthRequest struct {
	Type         string   `json:"type"`
	Location     string   `json:"location"`
	Name         string   `json:"name"`
	Key          string   `json:"key"`
	Token        string   `json:"token"`
	Username     string   `json:"username"`
	Password     string   `json:"password"`
	TokenURL     string   `json:"token_url"`
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret"`
	Scopes       []string `json:"scopes"`
	ClientAuth   string   `json:"client_auth"`
}

func (a AuthRequest) toDomain() plugin.Auth {
	return plugin.Auth{Type: plugin.AuthType(a.Type), In: a.Location, Name: a.Name, Key: a.Key, Token: a.Token,
		Username: a.Username, Password: a.Password, TokenURL: a.TokenURL, ClientID: a.ClientID,
		ClientSecret: a.ClientSecret, Scopes: a.Scopes, ClientAuth: a.ClientAuth}
}

// document is the openapi field: the document as a string (JSON or YAML
// text) or, for convenience, as a JSON object.
type document struct {
	set  bool
	text string
}

// UnmarshalJSON accepts a string or an object.
func (d *document) UnmarshalJSON(b []byte) error {
	d.set = true
	t := bytes.TrimSpace(b)
	switch {
	case len(t) > 0 && t[0] == '"':
		return json.Unmarshal(t, &d.text)
	case len(t) > 0 && t[0] == '{':
		d.text = string(t)
		return nil
	case string(t) == "null":
		d.set = false
		return nil
	}
	// A type error names the field, as httpx.BindJSON reports it.
	return &json.UnmarshalTypeError{Value: "number, array or bool", Type: reflect.TypeFor[string]()}
}

// createRequest is the body of POST /api/plugins.
type createRequest struct {
	WorkspaceID idText       `json:"workspace_id"`
	Kind        string       `json:"kind"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	OpenAPI     document     `json:"openapi"`
	ServerURL   string       `json:"server_url"`
	Transport   string       `json:"transport"`
	Auth        *AuthRequest `json:"auth"`
	// A stdio MCP server's command line and environment.
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// patchRequest is the body of PATCH /api/plugins/:id; absent fields are
// kept.
type patchRequest struct {
	Name        *string            `json:"name"`
	Description *string            `json:"description"`
	OpenAPI     document           `json:"openapi"`
	ServerURL   *string            `json:"server_url"`
	Transport   *string            `json:"transport"`
	Auth        *AuthRequest       `json:"auth"`
	Command     *string            `json:"command"`
	Args        *[]string          `json:"args"`
	Env         *map[string]string `json:"env"`
}

// debugRequest is the body of a debug run.
type debugRequest struct {
	Args    json.RawMessage `json:"args"`
	Version string          `json:"version"`
}

// argsText returns the arguments as JSON text: an object as it is, a
// string holding JSON as its content.
func (r debugRequest) argsText() (string, error) {
	t := bytes.TrimSpace(r.Args)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return "", errs.Invalid("args", "is not a valid JSON string")
		}
		return s, nil
	}
	return string(t), nil
}

// bindStrict decodes a JSON object body like httpx.BindJSON and also
// refuses unknown fields, so a misspelt field is reported rather than
// ignored. required refuses an empty body.
func bindStrict(c *app.RequestContext, dst any, required bool) error {
	body := c.Request.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		if required {
			return errs.Invalid("body", "is required: a JSON object")
		}
		return nil
	}
	if err := httpx.BindJSON(c, dst); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return errs.Invalid(strings.Trim(name, `"`), "is not a known field; see /openapi.yaml")
		}
	}
	return nil
}

// idText is an id as a request sends it, a JSON string or number, kept as
// text so that a wrong one is reported with the name of its field.
type idText string

// UnmarshalJSON accepts a string, a number or null.
func (t *idText) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*t = ""
	case string:
		*t = idText(strings.TrimSpace(x))
	case float64:
		*t = idText(b)
	default:
		*t = "?"
	}
	return nil
}
