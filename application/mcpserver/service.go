// Package mcpserver exposes a workspace's published bots and workflows as
// the tools of an MCP server: it assembles the tool list a caller may see
// and runs a call through the chat runtime or the workflow engine. The
// same catalog gives the resources (each tool described, a conversation's
// messages) and the prompts (each bot's published prompt). It knows
// nothing of the MCP wire: the HTTP edge turns Tool and Result into the
// protocol's types and gives each call a Client for what the MCP client can
// do (answer questions, receive progress).
package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Workspaces lists the workspaces a caller belongs to and its token may
// reach (identity.Service).
type Workspaces interface {
	ListWorkspaces(ctx context.Context, p identity.Principal, page identity.Page) ([]identity.MembershipView, int64, error)
}

// Bots lists a workspace's bots and resolves the version published to the
// API (bot.Service).
type Bots interface {
	List(ctx context.Context, p identity.Principal, workspaceID int64, which botapp.Publication, page identity.Page) ([]bot.Bot, int64, error)
	ResolveForChat(ctx context.Context, p identity.Principal, botID int64, draft bool) (*bot.Bot, *bot.Config, int64, error)
}

// Chats starts a chat turn, as Coze's /v3/chat does (chat.Service).
type Chats interface {
	Start(ctx context.Context, p identity.Principal, req chatapp.Request, sink chatapp.Sink) (*conversation.Chat, error)
	Cancel(ctx context.Context, p identity.Principal, conversationID, chatID int64) (*conversation.Chat, error)
}

// Workflows lists, describes, runs and resumes workflows
// (workflow.Service).
type Workflows interface {
	List(ctx context.Context, p identity.Principal, workspaceID int64, f workflow.ListFilter, page identity.Page) ([]workflow.Workflow, int64, error)
	GetVersion(ctx context.Context, p identity.Principal, id, number int64) (*workflow.Version, error)
	Prepare(ctx context.Context, p identity.Principal, req workflowapp.RunRequest) (*workflowapp.Prepared, error)
	Resume(ctx context.Context, p identity.Principal, req workflowapp.ResumeRequest, events wf.EventSink) (*workflowapp.Outcome, error)
}

// Deps is what the service needs. Workflows may be nil: then only bots
// are tools; Conversations may be nil: then no conversation is readable.
type Deps struct {
	Workspaces    Workspaces
	Bots          Bots
	Chats         Chats
	Workflows     Workflows
	Conversations Conversations
	Log           *slog.Logger
}

// Service assembles and runs the tools.
type Service struct{ d Deps }

// New returns the service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Client is what the MCP client of one call can do.
type Client interface {
	// CanAsk reports whether the client declared it can answer questions
	// (the elicitation capability).
	CanAsk() bool
	// Ask puts a question to the user through the client; ok is false
	// when the user declined or cancelled.
	Ask(ctx context.Context, q Question) (answer map[string]any, ok bool, err error)
	// Progress reports how far the call is, when the client asked for
	// progress (otherwise it does nothing).
	Progress(ctx context.Context, done float64, message string)
}

// Question is what a workflow asks: a message and the JSON Schema (a flat
// object) of the answer.
type Question struct {
	Message string
	Schema  map[string]any
}

// Tool is one tool as a client lists it.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  map[string]any
	OutputSchema map[string]any // nil: the output has no fixed shape

	kind        toolKind
	id          int64 // the bot's or the workflow's
	workspaceID int64
	version     int64 // the workflow version the schema describes
	params      []wf.Param
	prompt      string // a bot's persona
}

type toolKind int

const (
	botTool toolKind = iota + 1
	workflowTool
)

// Result is what a call returns: text for every client, structured
// content for those that read it, and whether it is a tool error (which
// the client shows the model; the call itself succeeded).
type Result struct {
	Text       string
	Structured map[string]any
	IsError    bool
}

// toolError is a Result the client shows as a failed call.
func toolError(format string) *Result { return &Result{Text: format, IsError: true} }

// decodeArgs reads a call's arguments: a JSON object or nothing.
func decodeArgs(raw json.RawMessage) (map[string]any, *Result) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, toolError("the arguments must be a JSON object")
	}
	return args, nil
}
