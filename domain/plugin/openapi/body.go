package openapi

import (
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// mediaPreference orders the body media types a tool can send.
var mediaPreference = []func(string) bool{
	func(mt string) bool { return mt == "application/json" },
	func(mt string) bool { return strings.HasSuffix(mt, "+json") },
	func(mt string) bool { return mt == "application/x-www-form-urlencoded" },
	func(mt string) bool { return mt == "text/plain" },
	func(mt string) bool { return strings.HasPrefix(mt, "text/") },
}

// body adds the request body's arguments. It returns a reason to skip the
// operation when no media type of the body can be sent.
func (o *operation) body() (skip string, err error) {
	raw, ok := o.op["requestBody"]
	if !ok {
		return "", nil
	}
	rb, _, err := o.p.r.deref(raw)
	if err != nil {
		return "", o.fail("requestBody: %v", err)
	}
	content, _ := rb["content"].(map[string]any)
	if len(content) == 0 {
		return "", nil
	}
	key := pickMedia(content)
	if key == "" {
		return "request body type " + strings.Join(sortedKeys(content), ", ") + " is not supported (use application/json, a URL-encoded form or text)", nil
	}
	media := bareMedia(key)
	entry, _ := content[key].(map[string]any)
	schema, err := o.conv.convert(entry["schema"], 0)
	if err != nil {
		return "", o.fail("requestBody %s schema: %v", media, err)
	}
	required, _ := rb["required"].(bool)
	if d, _ := rb["description"].(string); d != "" && schema["description"] == nil {
		schema["description"] = d
	}
	body := &plugin.Body{MediaType: media, Required: required}
	if fields := o.flatten(schema); fields != nil {
		body.Fields = fields
	} else {
		body.Property = o.bodyProperty()
		o.props[body.Property] = schema
		if required {
			o.required = append(o.required, body.Property)
		}
	}
	o.tool.Body = body
	return "", nil
}

func pickMedia(content map[string]any) string {
	keys := sortedKeys(content)
	for _, pref := range mediaPreference {
		for _, k := range keys {
			if pref(bareMedia(k)) {
				return k
			}
		}
	}
	return ""
}

// flatten makes the properties of an object body arguments of their own,
// the way a model expects them; it returns nil (keep the body whole, as
// one "body" argument) when the body is not a plain object or a property
// has the name of a parameter.
func (o *operation) flatten(schema map[string]any) []string {
	s := mergeAllOf(schema)
	if t, ok := s["type"]; ok && t != "object" {
		return nil
	}
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 || s["anyOf"] != nil || s["oneOf"] != nil || s["allOf"] != nil {
		return nil
	}
	fields := sortedKeys(props)
	if slices.ContainsFunc(fields, func(f string) bool { _, taken := o.props[f]; return taken }) {
		return nil
	}
	for _, f := range fields {
		o.props[f] = props[f]
	}
	// The body's own required fields are required arguments even when the
	// document forgot to mark the body required: the API needs them.
	o.required = append(o.required, asList(s["required"])...)
	return fields
}

// bodyProperty is the argument holding a whole body: "body", unless a
// parameter has that name.
func (o *operation) bodyProperty() string {
	for _, name := range []string{"body", "request_body", "_body"} {
		if _, taken := o.props[name]; !taken {
			return name
		}
	}
	return "__body"
}

// bareMedia is a media type without parameters, in lower case.
func bareMedia(key string) string {
	return strings.ToLower(strings.TrimSpace(strings.Split(key, ";")[0]))
}
