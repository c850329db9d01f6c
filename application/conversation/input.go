package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Input limits, as Coze documents them where it does.
const (
	maxMetaKeys      = 16
	maxMetaKeyLen    = 64
	maxMetaValueLen  = 512
	maxInputMessages = 100
	maxContentItems  = 50
)

// MessageInput is a message a caller adds to a conversation: the Coze
// EnterMessage. Content is text, a card, or for ContentObjectString a
// JSON array of items {type: text|image|file|audio, text|file_id|file_url}.
type MessageInput struct {
	Role        string // conversation.RoleUser or RoleAssistant
	Type        string // optional: question for a user, answer for an assistant
	Content     string
	ContentType string // optional: text by default
	MetaData    map[string]string
}

// ValidateMessages checks messages a caller sends, such as a conversation's
// initial messages or /v3/chat's additional_messages. Errors match
// errs.ErrInvalid and name the field as at[i].field, e.g.
// "messages[2].content".
func ValidateMessages(at string, in []MessageInput) error {
	if len(in) > maxInputMessages {
		return errs.Invalid(at, "must hold at most %d messages, got %d", maxInputMessages, len(in))
	}
	for i, m := range in {
		if err := validateMessage(fmt.Sprintf("%s[%d]", at, i), m); err != nil {
			return err
		}
	}
	return nil
}

// NewMessage returns the message in adds to c's current section, with its
// defaults filled in: the type from the role, text content. It is not
// stored; validate in first.
func NewMessage(c *conversation.Conversation, in MessageInput) *conversation.Message {
	m := &conversation.Message{
		WorkspaceID: c.WorkspaceID, ConversationID: c.ID, SectionID: c.SectionID, BotID: c.BotID,
		Role: in.Role, Type: in.Type, Content: in.Content, ContentType: in.ContentType, MetaData: in.MetaData,
	}
	if m.Type == "" {
		m.Type = conversation.TypeQuestion
		if m.Role == conversation.RoleAssistant {
			m.Type = conversation.TypeAnswer
		}
	}
	if m.ContentType == "" {
		m.ContentType = conversation.ContentText
	}
	return m
}

// field names a field under prefix: "content" or "messages[0].content".
func field(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func validateMessage(prefix string, m MessageInput) error {
	switch {
	case m.Role != conversation.RoleUser && m.Role != conversation.RoleAssistant:
		return errs.Invalid(field(prefix, "role"), "must be user or assistant, got %q", m.Role)
	case m.Role == conversation.RoleUser && m.Type != "" && m.Type != conversation.TypeQuestion:
		return errs.Invalid(field(prefix, "type"), "must be question for a user message, got %q", m.Type)
	case m.Role == conversation.RoleAssistant && m.Type != "" && m.Type != conversation.TypeAnswer:
		return errs.Invalid(field(prefix, "type"), "must be answer for an assistant message, got %q", m.Type)
	}
	if err := validateContent(prefix, m.ContentType, m.Content); err != nil {
		return err
	}
	return validateMetaData(field(prefix, "meta_data"), m.MetaData)
}

// validateContent checks content against its content type ("" is text).
func validateContent(prefix, contentType, content string) error {
	switch contentType {
	case "", conversation.ContentText, conversation.ContentCard:
		if strings.TrimSpace(content) == "" {
			return errs.Invalid(field(prefix, "content"), "is required")
		}
		return nil
	case conversation.ContentObjectString:
		return validateObjectString(field(prefix, "content"), content)
	}
	return errs.Invalid(field(prefix, "content_type"), "must be text, object_string or card, got %q", contentType)
}

// contentItem is one item of object_string content.
type contentItem struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	FileID  string `json:"file_id"`
	FileURL string `json:"file_url"`
}

func validateObjectString(name, content string) error {
	raw := bytes.TrimSpace([]byte(content))
	if len(raw) == 0 || raw[0] != '[' {
		return errs.Invalid(name, `must be a JSON array of items such as [{"type":"text","text":"hi"}] when content_type is object_string`)
	}
	var items []contentItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return errs.Invalid(name, "is not a JSON array of content items: %v", err)
	}
	if len(items) == 0 || len(items) > maxContentItems {
		return errs.Invalid(name, "must hold 1 to %d items, got %d", maxContentItems, len(items))
	}
	for i, it := range items {
		if err := validateContentItem(it); err != nil {
			return errs.Invalid(name, "item %d: %v", i, err)
		}
	}
	return nil
}

func validateContentItem(it contentItem) error {
	switch it.Type {
	case "text":
		if strings.TrimSpace(it.Text) == "" {
			return fmt.Errorf("a text item needs text")
		}
	case "image", "file", "audio":
		if it.FileID == "" && it.FileURL == "" {
			return fmt.Errorf("%s needs file_id or file_url", it.Type)
		}
	default:
		return fmt.Errorf("type must be text, image, file or audio, got %q", it.Type)
	}
	return nil
}

// validateMetaData checks Coze's limits: at most 16 pairs, keys of 1 to 64
// characters, values of at most 512.
func validateMetaData(name string, m map[string]string) error {
	if len(m) > maxMetaKeys {
		return errs.Invalid(name, "must hold at most %d pairs, got %d", maxMetaKeys, len(m))
	}
	for k, v := range m {
		if n := utf8.RuneCountInString(k); n == 0 || n > maxMetaKeyLen {
			return errs.Invalid(name, "key %q must be 1 to %d characters", k, maxMetaKeyLen)
		}
		if utf8.RuneCountInString(v) > maxMetaValueLen {
			return errs.Invalid(name, "the value of %q must be at most %d characters", k, maxMetaValueLen)
		}
	}
	return nil
}
