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
		if msg := modelMessage(m); msg != nil {
			out = append(out, msg)
		}
	}
	return out
}

// modelMessage is toModel for one message; nil when it stays out.
func modelMessage(m conversation.Message) *schema.Message {
	text := contentText(m.ContentType, m.Content)
	switch {
	case strings.TrimSpace(text) == "":
	case m.Role == conversation.RoleUser:
		return schema.UserMessage(text)
	case m.Type == conversation.TypeAnswer:
		return schema.AssistantMessage(text, nil)
	}
	return nil
}

// contentPart is one item of object_string content.
type contentPart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	FileID  string `json:"file_id"`
	FileURL string `json:"file_url"`
}

// contentParts parses object_string content; false when it is not one.
func contentParts(contentType, content string) ([]contentPart, bool) {
	if contentType != conversation.ContentObjectString {
		return nil, false
	}
	var parts []contentPart
	if json.Unmarshal([]byte(content), &parts) != nil {
		return nil, false
	}
	return parts, true
}

// contentText renders a message's content as text for the model. An
// object_string is a JSON array of parts; files and images are named by
// their URL or id so the model knows they were sent.
func contentText(contentType, content string) string {
	parts, ok := contentParts(contentType, content)
	if !ok {
		return content
	}
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(partText(p, ""))
	}
	return b.String()
}

// partText names a part as text; name is the stored name of its file
// when known.
func partText(p contentPart, name string) string {
	switch {
	case p.Type == "text":
		return p.Text
	case p.FileURL != "":
		return "[" + p.Type + ": " + p.FileURL + "]"
	case name != "":
		return "[" + p.Type + " file " + p.FileID + ": " + name + "]"
	}
	return "[" + p.Type + " file " + p.FileID + "]"
}
