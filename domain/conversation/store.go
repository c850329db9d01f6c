package conversation

import (
	"context"

	"github.com/pergola-ai/pergola/domain/identity"
)

// Filter narrows a list of conversations.
type Filter struct {
	BotID       int64
	ConnectorID string
}

// Store keeps conversations. GetConversation returns errs.ErrNotFound
// when unknown; the others act only inside the given workspace.
type Store interface {
	// CreateConversation assigns the id and opens the first section.
	CreateConversation(ctx context.Context, c *Conversation) error
	GetConversation(ctx context.Context, id int64) (*Conversation, error)
	// ListConversations lists newest first and reports whether more follow.
	ListConversations(ctx context.Context, workspaceID int64, f Filter, p identity.Page) ([]Conversation, bool, error)
	UpdateConversation(ctx context.Context, workspaceID, id int64, fn func(*Conversation) error) (*Conversation, error)
	// DeleteConversation removes it with its messages and chats.
	DeleteConversation(ctx context.Context, workspaceID, id int64) error
	// NewSection starts a new section and returns its id.
	NewSection(ctx context.Context, workspaceID, id int64) (int64, error)
}

// Order of a message list.
const (
	OrderDesc = "desc"
	OrderAsc  = "asc"
)

// MessageQuery pages through a conversation's messages. AfterID continues
// after that message in the list's order, BeforeID goes back before it,
// so a client following last_id always moves forward and ends.
type MessageQuery struct {
	Order    string // OrderDesc (default) or OrderAsc
	ChatID   int64
	BeforeID int64
	AfterID  int64
	Limit    int
}

// MessageStore keeps messages. Every method is scoped to a conversation.
type MessageStore interface {
	// CreateMessages stores messages in order, assigning ascending ids.
	CreateMessages(ctx context.Context, msgs ...*Message) error
	GetMessage(ctx context.Context, conversationID, id int64) (*Message, error)
	// ListMessages lists visible (not Hidden) messages and reports whether
	// more follow in the list's direction.
	ListMessages(ctx context.Context, conversationID int64, q MessageQuery) ([]Message, bool, error)
	// ListChatMessages lists the messages of one chat, hidden ones too,
	// oldest first.
	ListChatMessages(ctx context.Context, conversationID, chatID int64) ([]Message, error)
	// History returns the questions and answers of a section that are not
	// hidden, the last rounds of them, oldest first (a round starts at a
	// question).
	History(ctx context.Context, conversationID, sectionID int64, rounds int) ([]Message, error)
	UpdateMessage(ctx context.Context, conversationID, id int64, fn func(*Message) error) (*Message, error)
	// DeleteMessage removes a message and returns it as it was.
	DeleteMessage(ctx context.Context, conversationID, id int64) (*Message, error)
}

// ChatStore keeps chats. Every method is scoped to a conversation.
type ChatStore interface {
	CreateChat(ctx context.Context, c *Chat) error
	GetChat(ctx context.Context, conversationID, id int64) (*Chat, error)
	// UpdateChat runs fn on the chat inside a transaction holding its row;
	// fn's error aborts with nothing written.
	UpdateChat(ctx context.Context, conversationID, id int64, fn func(*Chat) error) (*Chat, error)
	// LatestChat returns the conversation's most recent chat, or
	// errs.ErrNotFound when it has none.
	LatestChat(ctx context.Context, conversationID int64) (*Chat, error)
	// StartChat stores a new chat with its first messages, atomically.
	StartChat(ctx context.Context, c *Chat, msgs []*Message) error
	// FinishChat stores msgs and runs fn on the chat in one transaction
	// holding its row; fn's error aborts with nothing written.
	FinishChat(ctx context.Context, conversationID, id int64, msgs []*Message, fn func(*Chat) error) (*Chat, error)
}
