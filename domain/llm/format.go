package llm

// Response formats a request may ask a chat model for, as OpenAI names them.
const (
	FormatText       = "text"
	FormatJSONObject = "json_object" // any JSON object
	FormatJSONSchema = "json_schema" // a JSON object valid for Schema
)

// ResponseFormat is what one request asks the model's answer to be: OpenAI's
// response_format (chat completions) or text.format (Responses). The zero
// value asks for nothing.
type ResponseFormat struct {
	Type        string
	Name        string // the schema's name, with FormatJSONSchema
	Description string
	Schema      map[string]any
	Strict      bool
}

// Set reports whether the format asks for more than plain text.
func (f ResponseFormat) Set() bool {
	return f.Type != "" && f.Type != FormatText
}
