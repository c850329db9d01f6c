package conversation

import (
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// ChatStatus is where a chat is in its life.
type ChatStatus string

// Chat statuses: created → in_progress → completed | failed |
// requires_action | canceled; requires_action → in_progress on submit.
const (
	ChatCreated        ChatStatus = "created"
	ChatInProgress     ChatStatus = "in_progress"
	ChatCompleted      ChatStatus = "completed"
	ChatFailed         ChatStatus = "failed"
	ChatRequiresAction ChatStatus = "requires_action"
	ChatCanceled       ChatStatus = "canceled"
)

// Terminal reports whether no more work happens on a chat in status s.
func (s ChatStatus) Terminal() bool {
	return s == ChatCompleted || s == ChatFailed || s == ChatCanceled
}

// Chat is one run of a bot over a conversation.
type Chat struct {
	ID             int64
	WorkspaceID    int64
	ConversationID int64
	SectionID      int64
	BotID          int64
	BotVersion     int64 // 0: the draft (a builder's debug chat)
	UserID         string
	ConnectorID    string
	Status         ChatStatus
	Usage          Usage
	LastError      *ChatError
	RequiredAction *RequiredAction
	MetaData       map[string]string
	// State is what a chat waiting for tool outputs resumes from: the
	// runtime's transcript, opaque to this package.
	State       []byte
	CreatedAt   time.Time
	CompletedAt *time.Time
	FailedAt    *time.Time
}

// ChatError is why a chat failed.
type ChatError struct {
	Code int
	Msg  string
}

// RequiredAction lists the client tool calls a chat waits for.
type RequiredAction struct {
	ToolCalls []ToolCall
}

// ToolCall is one call of a tool by the model.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// ToolOutput is a client's answer to one ToolCall.
type ToolOutput struct {
	ToolCallID string
	Output     string
}

// StartSubmit checks that a chat waits for exactly these outputs and moves
// it back to in_progress. It is meant to run inside the store's UpdateChat
// transaction, so two concurrent submits cannot both succeed.
func (c *Chat) StartSubmit(outputs []ToolOutput) error {
	if c.Status != ChatRequiresAction || c.RequiredAction == nil {
		return errs.Conflict("chat %d is %s, not waiting for tool outputs", c.ID, c.Status)
	}
	want := map[string]bool{}
	for _, tc := range c.RequiredAction.ToolCalls {
		want[tc.ID] = true
	}
	got := map[string]bool{}
	for i, o := range outputs {
		if !want[o.ToolCallID] {
			return errs.Invalid("tool_outputs", "item %d: chat %d did not ask for tool call %q", i, c.ID, o.ToolCallID)
		}
		if got[o.ToolCallID] {
			return errs.Invalid("tool_outputs", "item %d: tool call %q is answered twice", i, o.ToolCallID)
		}
		got[o.ToolCallID] = true
	}
	for id := range want {
		if !got[id] {
			return errs.Invalid("tool_outputs", "the output of tool call %q is missing", id)
		}
	}
	c.Status = ChatInProgress
	c.RequiredAction = nil
	return nil
}
