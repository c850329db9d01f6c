package chat

import (
	"encoding/json"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// toModel turns stored messages into the model's messages: questions are
// the user's, answers the assistant's; other types stay out of the context,
// and so do empty texts (providers refuse a message without content, and
// OpenAI clients drop an empty one).
func toModel(msgs []conversation.Message) []*schema.Message {
	out := make([]*schema.Message, 0, len(msgs))
	for _, m := range msgs {
		text := contentText(m.ContentType, m.Content)
		switch {
		case strings.TrimSpace(text) == "":
		case m.Role == conversation.RoleUser:
			out = append(out, schema.UserMessage(text))
		case m.Type == conversation.TypeAnswer:
			out = append(out, schema.AssistantMessage(text, nil))
		}
	}
	return out
}

// contentText renders a message's content as text for the model. An
// object_string is a JSON array of parts; files and images are named by
// their URL or id so the model knows they were sent.
func contentText(contentType, content string) string {
	if contentType != conversation.ContentObjectString {
		return content
	}
	var parts []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		FileID  string `json:"file_id"`
		FileURL string `json:"file_url"`
	}
	if json.Unmarshal([]byte(content), &parts) != nil {
		return content
	}
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch {
		case p.Type == "text":
			b.WriteString(p.Text)
		case p.FileURL != "":
			b.WriteString("[" + p.Type + ": " + p.FileURL + "]")
		default:
			b.WriteString("[" + p.Type + " file " + p.FileID + "]")
		}
	}
	return b.String()
}
