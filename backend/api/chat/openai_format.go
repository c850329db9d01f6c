package chat

import (
	"bytes"
	"regexp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// oaFormat is a response format: chat completions nest the schema
// ({"type":"json_schema","json_schema":{name,schema,strict}}), the
// Responses API's text.format does not ({"type":"json_schema",name,...});
// both are read.
type oaFormat struct {
	Type       string        `json:"type"`
	JSONSchema *oaSchemaSpec `json:"json_schema,omitempty"`
	oaSchemaSpec
}

type oaSchemaSpec struct {
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Schema      map[string]any `json:"schema,omitempty"`
	Strict      *bool          `json:"strict,omitempty"`
}

// rsText is the Responses API's text options.
type rsText struct {
	Format *oaFormat `json:"format"`
}

var formatName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// responseFormat reads a request's format; field names it in errors.
func responseFormat(f *oaFormat, field string) (llm.ResponseFormat, error) {
	if f == nil {
		return llm.ResponseFormat{}, nil
	}
	switch f.Type {
	case llm.FormatText, llm.FormatJSONObject:
		return llm.ResponseFormat{Type: f.Type}, nil
	case llm.FormatJSONSchema:
	default:
		return llm.ResponseFormat{}, errs.Invalid(field+".type", `must be "text", "json_object" or "json_schema"; got %q`, f.Type)
	}
	spec, at := f.oaSchemaSpec, field
	if f.JSONSchema != nil {
		spec, at = *f.JSONSchema, field+".json_schema"
	}
	if !formatName.MatchString(spec.Name) {
		return llm.ResponseFormat{}, errs.Invalid(at+".name", "must be 1-64 letters, digits, _ or -; got %q", spec.Name)
	}
	if spec.Schema == nil {
		return llm.ResponseFormat{}, errs.Invalid(at+".schema", "is required with json_schema: a JSON Schema object")
	}
	if t, _ := spec.Schema["type"].(string); t != "object" {
		return llm.ResponseFormat{}, errs.Invalid(at+".schema", `must be a JSON Schema of "type": "object" (the answer is an object); got %v`, spec.Schema["type"])
	}
	return llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: spec.Name, Description: spec.Description,
		Schema: spec.Schema, Strict: spec.Strict != nil && *spec.Strict}, nil
}

// needsJSONWord refuses json_object when nothing the caller sent says
// "JSON", as OpenAI does: the model must be told to answer in JSON.
func needsJSONWord(f llm.ResponseFormat, field string, sent ...[]byte) error {
	if f.Type != llm.FormatJSONObject {
		return nil
	}
	for _, b := range sent {
		if bytes.Contains(bytes.ToLower(b), []byte("json")) {
			return nil
		}
	}
	return errs.Invalid(field, `json_object needs the word "JSON" in the messages, telling the model to answer in JSON`)
}

// messageContents are the raw contents of a request's messages.
func messageContents(msgs []oaMessage) [][]byte {
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}
