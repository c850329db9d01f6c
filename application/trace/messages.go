package trace

import (
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/schema"
)

// The GenAI conventions' message schema (gen-ai-input-messages.json,
// gen-ai-output-messages.json, gen-ai-system-instructions.json): a
// message is a role and its parts; a part is text, a tool call, a tool
// call's response, reasoning or a URI.
type genaiMessage struct {
	Role         string      `json:"role"`
	Parts        []genaiPart `json:"parts"`
	Name         string      `json:"name,omitempty"`
	FinishReason string      `json:"finish_reason,omitempty"`
}

type genaiPart struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Response  any    `json:"response,omitempty"`
	Modality  string `json:"modality,omitempty"`
	URI       string `json:"uri,omitempty"`
}

// encodeInput splits what a model call is sent into its system
// instructions and the chat history, each in the conventions' JSON.
func encodeInput(msgs []*schema.Message) (system, history string) {
	var sys []genaiPart
	out := make([]genaiMessage, 0, len(msgs))
	for _, m := range msgs {
		if m == nil {
			continue
		}
		if m.Role == schema.System {
			sys = append(sys, textParts(m)...)
			continue
		}
		out = append(out, toGenAI(m))
	}
	if len(sys) > 0 {
		system = marshal(sys)
	}
	if len(out) > 0 {
		history = marshal(out)
	}
	return system, history
}

// encodeOutput is a model's answer in the conventions' JSON: one message
// (the one choice Pergola asks for) with why it stopped.
func encodeOutput(m *schema.Message) string {
	if m == nil {
		return ""
	}
	g := toGenAI(m)
	g.Role = string(schema.Assistant)
	g.FinishReason = finishReason(m)
	return marshal([]genaiMessage{g})
}

func toGenAI(m *schema.Message) genaiMessage {
	g := genaiMessage{Role: string(m.Role), Name: m.Name, Parts: []genaiPart{}}
	if m.ReasoningContent != "" {
		g.Parts = append(g.Parts, genaiPart{Type: "reasoning", Content: m.ReasoningContent})
	}
	if m.Role == schema.Tool {
		g.Parts = append(g.Parts, genaiPart{Type: "tool_call_response", ID: m.ToolCallID, Response: jsonOrText(m.Content)})
		return g
	}
	g.Parts = append(g.Parts, textParts(m)...)
	for _, tc := range m.ToolCalls {
		g.Parts = append(g.Parts, genaiPart{Type: "tool_call", ID: tc.ID, Name: tc.Function.Name, Arguments: jsonOrText(tc.Function.Arguments)})
	}
	return g
}

// textParts are a message's text and the URIs of its images and files.
func textParts(m *schema.Message) []genaiPart {
	var parts []genaiPart
	if m.Content != "" {
		parts = append(parts, genaiPart{Type: "text", Content: m.Content})
	}
	for _, p := range m.UserInputMultiContent {
		switch {
		case p.Type == schema.ChatMessagePartTypeText && p.Text != "":
			parts = append(parts, genaiPart{Type: "text", Content: p.Text})
		case p.Image != nil && p.Image.URL != nil:
			parts = append(parts, genaiPart{Type: "uri", Modality: "image", URI: *p.Image.URL})
		case p.File != nil && p.File.URL != nil:
			parts = append(parts, genaiPart{Type: "uri", Modality: "document", URI: *p.File.URL})
		}
	}
	return parts
}

func finishReason(m *schema.Message) string {
	if m.ResponseMeta != nil && m.ResponseMeta.FinishReason != "" {
		return m.ResponseMeta.FinishReason
	}
	if len(m.ToolCalls) > 0 {
		return "tool_call"
	}
	return "stop"
}

// jsonOrText is s as JSON when it is JSON, as text otherwise.
func jsonOrText(s string) any {
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		return v
	}
	return s
}

func marshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// responseIDKey is where eino-ext's OpenAI client keeps the provider's
// completion id in a message's Extra.
const responseIDKey = "openai-request-id"

// responseID is the provider's id of the completion m, when it gave one.
func responseID(m *schema.Message) string {
	if v, ok := m.Extra[responseIDKey]; ok {
		return fmt.Sprint(v)
	}
	return ""
}
