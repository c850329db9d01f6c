// Package chat holds the handlers of chats: Coze's /v3/chat family, the
// console's debug chat on a bot's draft, and the OpenAI-compatible
// /v1/chat/completions.
package chat

import (
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// Chat is a chat as Coze's SDKs decode it; the chatflow handlers send
// it too.
type Chat struct {
	ID             string            `json:"id"`
	ConversationID string            `json:"conversation_id"`
	BotID          string            `json:"bot_id"`
	SectionID      string            `json:"section_id,omitempty"`
	CreatedAt      int64             `json:"created_at"`
	CompletedAt    int64             `json:"completed_at,omitempty"`
	FailedAt       int64             `json:"failed_at,omitempty"`
	MetaData       map[string]string `json:"meta_data"`
	LastError      *errorDTO         `json:"last_error,omitempty"`
	Status         string            `json:"status"`
	RequiredAction *requiredAction   `json:"required_action,omitempty"`
	Usage          *usageDTO         `json:"usage,omitempty"`
}

type errorDTO struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
}

type usageDTO struct {
	TokenCount  int `json:"token_count"`
	OutputCount int `json:"output_count"`
	InputCount  int `json:"input_count"`
}

type requiredAction struct {
	Type              string            `json:"type"`
	SubmitToolOutputs submitToolOutputs `json:"submit_tool_outputs"`
}

type submitToolOutputs struct {
	ToolCalls []toolCallDTO `json:"tool_calls"`
}

type toolCallDTO struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function functionDTO `json:"function"`
}

type functionDTO struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// NewChat renders a chat for the Coze API.
func NewChat(c *conversation.Chat) Chat {
	d := Chat{
		ID: httpx.OptionalID(c.ID), ConversationID: httpx.OptionalID(c.ConversationID), BotID: httpx.OptionalID(c.BotID),
		SectionID: httpx.OptionalID(c.SectionID),
		CreatedAt: httpx.Unix(c.CreatedAt), CompletedAt: httpx.UnixPtr(c.CompletedAt), FailedAt: httpx.UnixPtr(c.FailedAt),
		MetaData: httpx.MetaData(c.MetaData), Status: string(c.Status),
		Usage: &usageDTO{TokenCount: c.Usage.Total(), OutputCount: c.Usage.OutputTokens, InputCount: c.Usage.InputTokens},
	}
	if c.LastError != nil {
		d.LastError = &errorDTO{Code: c.LastError.Code, Msg: c.LastError.Msg}
	}
	if c.RequiredAction != nil {
		ra := &requiredAction{Type: "submit_tool_outputs"}
		for _, tc := range c.RequiredAction.ToolCalls {
			ra.SubmitToolOutputs.ToolCalls = append(ra.SubmitToolOutputs.ToolCalls,
				toolCallDTO{ID: tc.ID, Type: "function", Function: functionDTO{Name: tc.Name, Arguments: tc.Arguments}})
		}
		d.RequiredAction = ra
	}
	return d
}
