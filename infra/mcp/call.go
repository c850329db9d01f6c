package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallTool calls the tool name with args and returns its text content,
// parts joined by newlines (structured content as JSON when there is no
// text; images, audio and resources described in brackets). A result with
// isError set comes back as a *ToolError whose text is the tool's message;
// failures of the exchange are classified as for Connect (an unknown tool
// is an ErrProtocol the server words).
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any) (string, error) {
	ctx, cancel := withTimeout(ctx, c.opTimeout)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", classify("call tool "+name+" on", c.url, withStderr(err, c.stderr))
	}
	if len(res.InputRequests) > 0 {
		return "", classify("call tool "+name+" on", c.url, fmt.Errorf("the tool asks for user input, which is not supported"))
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = "the tool " + name + " failed without a message"
		}
		return "", &ToolError{Text: text}
	}
	return text, nil
}

// resultText renders a tool result as text for the model.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch v := c.(type) {
		case *sdk.TextContent:
			parts, hasText = append(parts, v.Text), true
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource: %s %s]", v.Name, v.URI))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(v.Resource))
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append([]string{string(b)}, parts...)
		}
	}
	return strings.Join(parts, "\n")
}

func embedded(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource]"
	case r.Text != "":
		return r.Text
	}
	return fmt.Sprintf("[resource: %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
}

// schemaMap returns a tool's input schema as a map, converting whatever
// form the SDK decoded it into.
func schemaMap(schema any) map[string]any {
	if m, ok := schema.(map[string]any); ok {
		return m
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return map[string]any{"type": "object"}
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return map[string]any{"type": "object"}
	}
	return m
}
