package fakellm

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Request is a decoded chat completion request, as recorded by the server
// and passed to rules.
type Request struct {
	Model        string
	Messages     []Message
	Tools        []Tool
	ToolChoice   string // the raw JSON of tool_choice; empty when absent
	Stream       bool
	IncludeUsage bool // stream_options.include_usage
	Temperature  *float64
	TopP         *float64
	MaxTokens    *int    // max_tokens, or else max_completion_tokens
	Stop         string  // the raw JSON of stop; empty when absent
	APIKey       string  // the bearer token of the Authorization header
	Format       *Format // response_format; nil when absent or "text"
}

// Message is one message of a request. Content holds the text; for a
// multi-part content array it holds the text parts joined together.
type Message struct {
	Role       string
	Content    string
	Name       string
	ToolCalls  []ToolCall
	ToolCallID string
	Images     []Image // the image parts of a multi-part content, in order
}

// Tool is a tool offered in a request.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction describes a function tool; Parameters is its JSON Schema.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is a call of a function tool, in a request's assistant message or
// in a reply.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage is the token usage a reply reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// Reply is what the server answers to one request. A non-zero Status makes
// it an HTTP error with an OpenAI-style error body carrying Error. Otherwise
// the answer is an assistant message with Text and then ToolCalls; text and
// tool calls together reproduce models that talk before calling a tool.
type Reply struct {
	Text      string
	Reasoning string // sent as reasoning_content before the text, as reasoning models do
	ToolCalls []ToolCall
	Status    int
	Error     string
	Usage     *Usage // nil: counted from the request and the reply
}

// Text returns a reply answering s.
func Text(s string) Reply { return Reply{Text: s} }

// Calls returns a reply calling the given tools.
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call returns a call of the function name with JSON arguments args. The
// server fills in an ID when it is empty.
func Call(name, args string) ToolCall {
	return ToolCall{Type: "function", Function: FunctionCall{Name: name, Arguments: args}}
}

// Fail returns a reply that fails with the HTTP status and message.
func Fail(status int, message string) Reply {
	if message == "" {
		message = http.StatusText(status)
	}
	return Reply{Status: status, Error: message}
}

// LastUserText returns the content of the last user message, or "".
func (r Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// HasTool reports whether the request offers a function tool named name.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

func decodeRequest(w wireRequest, authorization string) Request {
	r := Request{
		Model:       w.Model,
		Tools:       w.Tools,
		ToolChoice:  rawText(w.ToolChoice),
		Stream:      w.Stream,
		Temperature: w.Temperature,
		TopP:        w.TopP,
		MaxTokens:   w.MaxTokens,
		Stop:        rawText(w.Stop),
		APIKey:      strings.TrimPrefix(authorization, "Bearer "),
		Format:      w.Format.format(),
	}
	if r.MaxTokens == nil {
		r.MaxTokens = w.MaxComplete
	}
	if w.StreamOptions != nil {
		r.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	r.Messages = make([]Message, len(w.Messages))
	for i, m := range w.Messages {
		r.Messages[i] = Message{
			Role:       m.Role,
			Content:    m.text(),
			Name:       m.Name,
			ToolCalls:  m.ToolCalls,
			ToolCallID: m.ToolCallID,
			Images:     m.images(),
		}
	}
	return r
}

func rawText(raw json.RawMessage) string {
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}
