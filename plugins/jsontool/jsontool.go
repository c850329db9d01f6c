// Package jsontool is the built-in "json" plugin: read a value out of a
// JSON document with a small path syntax (a.b[0].c), format it, and check
// that a text is valid JSON.
package jsontool

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

// The plugin's identity in the catalog.
const (
	ID          = "json"
	Name        = "JSON"
	Description = "JSON utilities: query a document with a path like a.b[0].c, pretty-print or minify it, validate it."
)

// maxDocument bounds the JSON a call reads.
const maxDocument = 1 << 20

//go:embed openapi.yaml
var manifest string

// Manifest returns the plugin's OpenAPI document.
func Manifest() []byte { return []byte(manifest) }

// Plugin runs the JSON operations. It holds no state.
type Plugin struct{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Ops returns the operations by operationId.
func (p *Plugin) Ops() tool.Ops {
	return tool.Ops{"query": query, "format": format, "validate": validate}
}

// Invoke runs operationID. A document that is not JSON fails with
// errs.Invalid naming "json", a path that leads nowhere with one naming
// "path".
func (p *Plugin) Invoke(ctx context.Context, operationID string, args map[string]any) (string, error) {
	return p.Ops().Invoke(ctx, operationID, args)
}

// document reads the "json" argument as JSON text, at most maxDocument
// bytes. A model that sends the value itself (an object or array rather
// than text) gets it encoded.
func document(args map[string]any) ([]byte, error) {
	v, ok := args["json"]
	if !ok || v == nil {
		return nil, errs.Invalid("json", "is required")
	}
	var raw []byte
	if s, ok := v.(string); ok {
		raw = []byte(s)
	} else if b, err := json.Marshal(v); err == nil {
		raw = b
	} else {
		return nil, errs.Invalid("json", "must be JSON text")
	}
	if len(raw) > maxDocument {
		return nil, errs.Invalid("json", "is %d bytes; the limit is %d", len(raw), maxDocument)
	}
	return raw, nil
}

// decode parses raw keeping numbers exact; it fails with errs.Invalid
// naming "json" and saying where the text breaks.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = fmt.Errorf("extra data after the value at byte %d", dec.InputOffset())
	}
	if err != nil {
		return nil, errs.Invalid("json", "is not valid JSON: %s", position(raw, err))
	}
	return v, nil
}

func query(_ context.Context, args map[string]any) (string, error) {
	raw, err := document(args)
	if err != nil {
		return "", err
	}
	path, err := tool.OptString(args, "path", "")
	if err != nil {
		return "", err
	}
	steps, err := parsePath(path)
	if err != nil {
		return "", err
	}
	v, err := decode(raw)
	if err != nil {
		return "", err
	}
	if v, err = walk(v, steps, ""); err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return encode(v, ""), nil
}

func format(_ context.Context, args map[string]any) (string, error) {
	raw, err := document(args)
	if err != nil {
		return "", err
	}
	indent, err := tool.OptInt(args, "indent", 2, 0, 8)
	if err != nil {
		return "", err
	}
	sortKeys, err := tool.OptBool(args, "sort_keys", false)
	if err != nil {
		return "", err
	}
	v, err := decode(raw)
	if err != nil {
		return "", err
	}
	if sortKeys { // encoding/json writes map keys sorted
		return encode(v, strings.Repeat(" ", indent)), nil
	}
	var b bytes.Buffer
	if indent == 0 {
		err = json.Compact(&b, raw)
	} else {
		err = json.Indent(&b, bytes.TrimSpace(raw), "", strings.Repeat(" ", indent))
	}
	if err != nil {
		return "", errs.Invalid("json", "is not valid JSON: %v", err)
	}
	return b.String(), nil
}

func validate(_ context.Context, args map[string]any) (string, error) {
	raw, err := document(args)
	if err != nil {
		return "", err
	}
	v, err := decode(raw)
	if err != nil {
		var fe *errs.FieldError
		if errors.As(err, &fe) {
			return "invalid: " + strings.TrimPrefix(fe.Reason, "is not valid JSON: "), nil
		}
		return "", err
	}
	return "valid: " + describe(v), nil
}

// encode writes v as JSON without escaping <, > and &, indented when
// indent is not empty.
func encode(v any, indent string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
