package chat

import (
	"context"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"

	convapp "github.com/pergola-ai/pergola/application/conversation"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/file"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/domain/variable"
)

// Bots gives the runtime the configuration a chat runs and the keyword
// memory of its end users.
type Bots interface {
	// ResolveForChat authorizes the caller and returns the bot with the
	// configuration to run: the published one, or the draft (version 0).
	ResolveForChat(ctx context.Context, p identity.Principal, botID int64, draft bool) (*bot.Bot, *bot.Config, int64, error)
	VariableValues(ctx context.Context, s variable.Scope, defs []variable.Definition) (map[string]string, error)
	SetVariables(ctx context.Context, s variable.Scope, defs []variable.Definition, kvs []variable.KV) ([]variable.KV, []string, error)
}

// Conversations finds or opens the conversation of a chat and checks the
// messages a caller adds.
type Conversations interface {
	// ResolveConversation loads and authorizes a conversation, or opens
	// a new one for the bot when id is 0.
	ResolveConversation(ctx context.Context, p identity.Principal, id, botID int64, connectorID string) (*conversation.Conversation, error)
	// ResolveTurn is ResolveConversation for a turn: it returns the
	// history too (role, type and content of each message), read with the
	// conversation, and trusts q.MemberOf for the membership the runtime
	// already checked.
	ResolveTurn(ctx context.Context, p identity.Principal, q convapp.TurnQuery) (*conversation.Conversation, []conversation.Message, error)
	// ValidateMessages checks messages sent with a chat; errors name
	// at[i] and the field.
	ValidateMessages(at string, msgs []InputMessage) error
}

// ToolSource adds the tools a bot binds beyond keyword memory and client
// tools: plugin tools, one SQL tool per table, workflows. It is called when
// a bot version's agent is built (once per version), so the tools must read
// everything about a particular run from the context (bot.RunScopeFrom).
type ToolSource interface {
	BotTools(ctx context.Context, b *bot.Bot, cfg *bot.Config) ([]tool.BaseTool, error)
}

// ToolResumer continues a tool that ended a turn to ask the end user
// something (a workflow's question node): the end user's next message in
// the conversation answers it.
type ToolResumer interface {
	// Asks reports whether a tool's result is such a question.
	Asks(result string) bool
	// ResumeTool answers it. The result is another question (Asks is
	// true), or the bot's answer already streamed (answered), or a result
	// the model continues with. errs.ErrInvalid: the message does not
	// answer the question, which stays open.
	ResumeTool(ctx context.Context, b *bot.Bot, asked, answer string) (result string, answered bool, err error)
}

// ChatStore keeps chats: the domain's store, and EndTurn, which ends a
// turn this process ran in one write without reading the chat first
// (sqlstore.ChatStore implements it).
type ChatStore interface {
	conversation.ChatStore
	// EndTurn stores msgs and outcome, the chat as the turn leaves it,
	// in one transaction while the chat is in progress; when it is not
	// any more, fallback decides on the chat as stored, as FinishChat's
	// fn does. errs.ErrConflict: the messages are stored already.
	EndTurn(ctx context.Context, outcome *conversation.Chat, msgs []*conversation.Message, fallback func(*conversation.Chat) error) (*conversation.Chat, error)
}

// Files gives the runtime the uploaded files messages name by file_id.
// Both methods answer errs.ErrNotFound for an unknown file and for a file
// of another workspace.
type Files interface {
	Of(ctx context.Context, workspaceID, id int64) (*file.File, error)
	Content(ctx context.Context, workspaceID, id int64) (*file.File, []byte, error)
}

// Models resolves a bot's model configuration.
type Models interface {
	Get(ctx context.Context, id string) (*llm.Model, error)
}

// ChatModels turns a model configuration into an eino chat model, and a
// request's response format into an option of that model's calls (false
// when the model's provider cannot be asked for one).
type ChatModels interface {
	ChatModel(ctx context.Context, m llm.Model) (model.ToolCallingChatModel, error)
	FormatOption(m llm.Model, f llm.ResponseFormat) (model.Option, bool)
}

// IDs hands out time-ordered ids for chats and messages before they are
// stored, so streamed events can name them.
type IDs interface {
	Next() int64
}

// Broadcaster carries cancel requests to the process running a chat.
type Broadcaster interface {
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string) (Subscription, error)
}

// Subscription is a live subscription of a Broadcaster. It is an alias of
// an unnamed interface, as the memory and Redis pub/sub declare theirs, so
// they satisfy Broadcaster as they are.
type Subscription = interface {
	C() <-chan []byte
	Close() error
}

// InputMessage is a message a caller sends with a chat (Coze's
// additional_messages): the conversation package's input, checked by its
// rules.
type InputMessage = convapp.MessageInput

// URLChecker applies the egress policy to a URL without fetching it; the
// egress guard implements it. Image URLs are handed to the model
// provider, which fetches them: the provider may sit in the same network.
type URLChecker interface {
	// CheckURL fails with an error matching errs.ErrForbidden when the
	// policy refuses the URL's destination (a loopback, private,
	// link-local or metadata address, or a scheme other than http(s)),
	// saying why; errs.ErrInvalid for a malformed URL; another error when
	// its host cannot be resolved.
	CheckURL(ctx context.Context, rawURL string) error
}
