// Package conversations holds the handlers of Coze's conversation and
// message API (/v1/conversation*, /v1/conversations*), in the wire shapes
// Coze's SDKs decode: string ids, Unix-second times, meta_data always an
// object. Its Message and EnterMessage types are shared with the chat
// handlers so that every surface shows a message the same way.
package conversations

import (
	"bytes"
	"encoding/json"
	"fmt"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Conversation is a conversation as Coze shows it.
type Conversation struct {
	ID            httpx.ID          `json:"id"`
	Name          string            `json:"name"`
	BotID         string            `json:"bot_id"`
	ConnectorID   string            `json:"connector_id"`
	CreatedAt     int64             `json:"created_at"`
	UpdatedAt     int64             `json:"updated_at"`
	MetaData      map[string]string `json:"meta_data"`
	LastSectionID string            `json:"last_section_id"`
	// ActiveBotID is the bot the conversation was handed to, which answers
	// its turns; "" while its own bot does.
	ActiveBotID string `json:"active_bot_id"`
}

// NewConversation converts a conversation to its wire shape.
func NewConversation(c *conversation.Conversation) Conversation {
	return Conversation{
		ID: httpx.ID(c.ID), Name: c.Name, BotID: httpx.OptionalID(c.BotID), ConnectorID: c.ConnectorID,
		CreatedAt: httpx.Unix(c.CreatedAt), UpdatedAt: httpx.Unix(c.UpdatedAt),
		MetaData: httpx.MetaData(c.MetaData), LastSectionID: httpx.OptionalID(c.SectionID), ActiveBotID: httpx.OptionalID(c.ActiveBotID),
	}
}

// Message is a message as Coze shows it.
type Message struct {
	ID               string            `json:"id"`
	ConversationID   string            `json:"conversation_id"`
	BotID            string            `json:"bot_id"`
	ChatID           string            `json:"chat_id"`
	SectionID        string            `json:"section_id"`
	Role             string            `json:"role"`
	Type             string            `json:"type"`
	Content          string            `json:"content"`
	ContentType      string            `json:"content_type"`
	ReasoningContent string            `json:"reasoning_content"`
	MetaData         map[string]string `json:"meta_data"`
	CreatedAt        int64             `json:"created_at"`
	UpdatedAt        int64             `json:"updated_at"`
}

// NewMessage converts a message to its wire shape.
func NewMessage(m *conversation.Message) Message {
	return Message{
		ID: httpx.OptionalID(m.ID), ConversationID: httpx.OptionalID(m.ConversationID), BotID: httpx.OptionalID(m.BotID),
		ChatID: httpx.OptionalID(m.ChatID), SectionID: httpx.OptionalID(m.SectionID), Role: m.Role, Type: m.Type,
		Content: m.Content, ContentType: m.ContentType, ReasoningContent: m.ReasoningContent,
		MetaData: httpx.MetaData(m.MetaData), CreatedAt: httpx.Unix(m.CreatedAt), UpdatedAt: httpx.Unix(m.UpdatedAt),
	}
}

// NewMessages converts a list of messages; never nil, so it is sent as [].
func NewMessages(list []conversation.Message) []Message {
	out := make([]Message, len(list))
	for i := range list {
		out[i] = NewMessage(&list[i])
	}
	return out
}

// EnterMessage is a message a client sends (Coze's EnterMessage), in
// conversation create's messages and /v3/chat's additional_messages. The
// other fields of Coze's Message that SDKs send along (id, chat_id,
// created_at, ...) are ignored.
type EnterMessage struct {
	Role        string            `json:"role"`
	Type        string            `json:"type"`
	Content     json.RawMessage   `json:"content"`
	ContentType string            `json:"content_type"`
	MetaData    map[string]string `json:"meta_data"`
}

// EnterMessages converts what a client sent under the field at into
// message inputs, and validates them (errors name at[i].field).
func EnterMessages(at string, in []EnterMessage) ([]convapp.MessageInput, error) {
	out := make([]convapp.MessageInput, len(in))
	for i, m := range in {
		content, err := contentText(fmt.Sprintf("%s[%d].content", at, i), m.Content)
		if err != nil {
			return nil, err
		}
		out[i] = convapp.MessageInput{Role: m.Role, Type: m.Type, Content: content, ContentType: m.ContentType, MetaData: m.MetaData}
	}
	if err := convapp.ValidateMessages(at, out); err != nil {
		return nil, err
	}
	return out, nil
}

// contentText reads message content: a JSON string, or (as @coze/api sends
// object_string content) a JSON array, kept as its JSON text.
func contentText(field string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", errs.Invalid(field, "is not a valid JSON string")
		}
		return s, nil
	case raw[0] == '[':
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return "", errs.Invalid(field, "is not a valid JSON array")
		}
		return buf.String(), nil
	}
	return "", errs.Invalid(field, "must be a string, or an array of content items for object_string")
}

// looseID is an id in a request body: a JSON string (empty for none), a
// number or null. It is parsed with parse, which names the field.
type looseID string

// UnmarshalJSON keeps the id's text for parse.
func (v *looseID) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = looseID(s)
		return nil
	}
	*v = looseID(b)
	return nil
}

// parse returns the id, 0 when absent, or errs.ErrInvalid naming field.
func (v looseID) parse(field string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	return httpx.ParseID(field, string(v))
}
