package mcpserver

import (
	"strings"

	wf "github.com/pergola-ai/pergola/workflow"
)

// maxSlug bounds the name part of a tool name; MCP allows 128 characters,
// but some clients prefix the server's name and models cap at 64.
const maxSlug = 48

// slug turns a name into the lower-case letters, digits and single
// underscores MCP clients accept in tool names.
func slug(name string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(name) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			gap = false
			continue
		}
		gap = true
	}
	s := b.String()
	if len(s) > maxSlug {
		s = strings.TrimRight(s[:maxSlug], "_")
	}
	return s
}

// chatInputSchema is the input of every bot tool.
func chatInputSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"message":         map[string]any{"type": "string", "description": "What to say to the bot."},
			"conversation_id": map[string]any{"type": "string", "description": "Continue this conversation (from a previous answer's conversation_id); omit to start a new one."},
			"user_id":         map[string]any{"type": "string", "description": "Who the end user is, for the bot's per-user memory; defaults to the token's user."},
		},
		"required":             []any{"message"},
		"additionalProperties": false,
	}
}

// chatOutputSchema is the structured output of every bot tool.
func chatOutputSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"answer":          map[string]any{"type": "string"},
			"conversation_id": map[string]any{"type": "string"},
			"chat_id":         map[string]any{"type": "string"},
		},
		"required": []any{"answer", "conversation_id"},
	}
}

// objectSchema is the JSON Schema of an object with params as properties.
func objectSchema(params []wf.Param) map[string]any {
	props := map[string]any{}
	required := []any{}
	for _, p := range params {
		s := typeSchema(p.Schema)
		if p.Description != "" {
			s["description"] = p.Description
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// typeSchema is the JSON Schema of one workflow type.
func typeSchema(s wf.Schema) map[string]any {
	switch s.Type {
	case wf.TypeString, wf.TypeInteger, wf.TypeNumber, wf.TypeBoolean:
		return map[string]any{"type": string(s.Type)}
	case wf.TypeFile:
		return map[string]any{"type": "string", "description": "the URL of a file"}
	case wf.TypeObject:
		if len(s.Properties) == 0 {
			return map[string]any{"type": "object"}
		}
		o := objectSchema(s.Properties)
		delete(o, "additionalProperties")
		return o
	case wf.TypeArray:
		items := map[string]any{}
		if s.Items != nil {
			items = typeSchema(*s.Items)
		}
		return map[string]any{"type": "array", "items": items}
	}
	return map[string]any{} // any type
}
