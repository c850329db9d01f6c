// Package bot holds bots: a draft configuration a builder edits and the
// immutable versions it publishes. Channels run a published version; the
// builder's debug chat runs the draft.
package bot

import (
	"context"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// Bot is a bot with its draft and the number of its latest version.
type Bot struct {
	ID          int64
	WorkspaceID int64
	CreatorID   int64
	Draft       Config
	// DraftRevision grows with every save of the draft; with the bot id it
	// keys the compiled draft agent, so an edit is never served stale.
	DraftRevision int64
	// PublishedVersion is the latest version; 0 while never published.
	PublishedVersion int64
	PublishedAt      *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// IsPublished reports whether the bot has a version channels can run.
func (b *Bot) IsPublished() bool { return b.PublishedVersion > 0 }

// Config is everything that defines how a bot behaves.
type Config struct {
	Name          string
	Description   string
	IconURL       string
	Prompt        string // the persona; {{keyword}} placeholders take variable values
	Model         ModelSettings
	Plugins       []PluginTool
	Workflows     []WorkflowRef
	Tables        []TableRef
	Variables     []variable.Definition
	ClientTools   []ClientTool
	Onboarding    Onboarding
	SuggestReply  SuggestReply
	HistoryRounds int // conversation rounds given to the model
	MaxToolRounds int // model-tool rounds before the final answer is forced
	// AppID is the app (of the bot's workspace) whose variables the bot's
	// workflow tools read and assign for its end users; 0 for none.
	AppID int64
	// Knowledge binds knowledge bases the bot answers from.
	Knowledge KnowledgeSettings
	// SubAgents are other bots of the workspace the bot calls as tools.
	SubAgents []SubAgent
	// Handoffs are the bots of the workspace this bot may hand the
	// conversation to.
	Handoffs []Handoff
}

// ModelSettings picks the model and its parameters.
type ModelSettings struct {
	ModelID        string
	Temperature    *float64
	TopP           *float64
	MaxTokens      int
	ResponseFormat string // "text" (default) or "json"
}

// PluginTool binds one tool of a plugin, at a version ("" = latest at
// publish time; a published version always names one).
type PluginTool struct {
	PluginID int64
	Tool     string
	Version  string
}

// WorkflowRef binds a workflow as a tool, at a version.
type WorkflowRef struct {
	WorkflowID int64
	Version    string
}

// TableRef binds a table; the bot gets one SQL tool for it.
type TableRef struct {
	TableID int64
}

// ClientTool is a tool the API caller runs: when the model calls it the
// chat stops with requires_action until the caller submits the output.
type ClientTool struct {
	Name        string
	Description string
	Parameters  map[string]any // a JSON Schema object; nil means no parameters
}

// Onboarding is what a new conversation shows first.
type Onboarding struct {
	Prologue           string
	SuggestedQuestions []string
}

// SuggestReply asks the model for follow-up questions after each answer.
type SuggestReply struct {
	Enabled bool
	Prompt  string // extra instruction for the suggestions; optional
}

// Version is an immutable published configuration.
type Version struct {
	BotID       int64
	Number      int64
	Config      Config
	Connectors  []string // the channels it was published to, e.g. "1024" (API)
	PublisherID int64
	CreatedAt   time.Time
}

// Label is the version as the Coze API shows it.
func (v *Version) Label() string { return strconv.FormatInt(v.Number, 10) }

// ListFilter narrows a list of bots.
type ListFilter struct {
	PublishedOnly bool
}

// Store keeps bots and their versions. GetBot and GetVersion return
// errs.ErrNotFound when unknown; the other methods act only inside the
// given workspace and answer ErrNotFound for a bot of another one.
type Store interface {
	CreateBot(ctx context.Context, b *Bot) error
	GetBot(ctx context.Context, id int64) (*Bot, error)
	ListBots(ctx context.Context, workspaceID int64, f ListFilter, p identity.Page) ([]Bot, int64, error)
	// UpdateBot runs fn on the bot inside a transaction and saves it with
	// DraftRevision increased; fn's error aborts with nothing written.
	UpdateBot(ctx context.Context, workspaceID, id int64, fn func(*Bot) error) (*Bot, error)
	// DeleteBot removes the bot and its versions.
	DeleteBot(ctx context.Context, workspaceID, id int64) error
	// PublishBot stores v as the bot's next version (v.Number is assigned)
	// and makes it the published one, atomically.
	PublishBot(ctx context.Context, workspaceID int64, v *Version) error
	GetVersion(ctx context.Context, botID, number int64) (*Version, error)
	// ListVersions returns the versions of a bot, newest first.
	ListVersions(ctx context.Context, botID int64) ([]Version, error)
	// PublishedTo returns the number of the version last published to a
	// connector ("1024" for the API, "999", or a channel id); 0 when the
	// bot was never published there.
	PublishedTo(ctx context.Context, botID int64, connector string) (int64, error)
}
