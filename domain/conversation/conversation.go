// Package conversation holds conversations, their messages and the chats
// that run a bot over them. A conversation is split into sections: clearing
// it starts a new section, and only the current section's messages reach
// the model.
package conversation

import (
	"time"
)

// Conversation is a thread of messages between end users and a bot.
type Conversation struct {
	ID          int64
	WorkspaceID int64
	BotID       int64 // 0 when created without a bot
	CreatorID   int64 // the user whose token created it
	ConnectorID string
	Name        string
	MetaData    map[string]string
	SectionID   int64 // the current section (Coze's last_section_id)
	// ParentID is the conversation whose bot called this one's bot as a
	// sub-agent; 0 for a conversation of its own.
	ParentID int64
	// ActiveBotID is the bot the conversation was handed to, which answers
	// its turns until it hands it back or on; 0: the conversation's bot.
	ActiveBotID int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message types, as Coze names them.
const (
	TypeQuestion     = "question"
	TypeAnswer       = "answer"
	TypeFunctionCall = "function_call"
	TypeToolOutput   = "tool_output"
	TypeToolResponse = "tool_response"
	TypeFollowUp     = "follow_up"
	TypeVerbose      = "verbose"
)

// Content types.
const (
	ContentText         = "text"
	ContentObjectString = "object_string"
	ContentCard         = "card"
)

// Message is one message of a conversation.
type Message struct {
	ID               int64
	WorkspaceID      int64
	ConversationID   int64
	SectionID        int64
	BotID            int64
	ChatID           int64 // 0 for messages created outside a chat
	Role             string
	Type             string
	Content          string
	ContentType      string
	ReasoningContent string
	MetaData         map[string]string
	// Hidden messages belong to a chat run with auto_save_history=false:
	// listed with their chat, never part of the conversation's history.
	Hidden    bool
	Feedback  *Feedback
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Feedback is an end user's judgement of an answer.
type Feedback struct {
	Type        string // "like" or "unlike"
	ReasonTypes []string
	Comment     string
	CreatedAt   time.Time
}

// Usage counts the tokens of a chat.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// Total is input plus output tokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}
