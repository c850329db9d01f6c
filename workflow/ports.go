package workflow

import (
	"context"
	"net/http"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// The ports: everything outside the engine reaches it through these small
// interfaces, passed to New. Tests pass in-memory fakes; the composition
// root passes adapters over the real services. A nil port makes the nodes
// that need it fail with a readable error, so a workflow that does not use
// tables runs without a table service.

// ModelProvider gives the chat model llm and intent nodes call.
type ModelProvider interface {
	// ChatModel returns the model with id; the error is shown to the
	// builder (an unknown or disabled model).
	ChatModel(ctx context.Context, id string) (model.ToolCallingChatModel, error)
}

// ToolInvoker runs plugin tools, for plugin nodes and llm nodes with tools.
type ToolInvoker interface {
	// DescribeTool returns a tool's name, description and parameters.
	DescribeTool(ctx context.Context, t ToolRef) (*schema.ToolInfo, error)
	// InvokeTool calls the tool with JSON arguments and returns its result
	// text; an error fails the node with its message.
	InvokeTool(ctx context.Context, t ToolRef, argumentsJSON string) (string, error)
}

// ToolRef names one tool of a plugin in a workspace.
type ToolRef struct {
	WorkspaceID int64
	PluginID    int64
	Tool        string
}

// TableQuerier runs the operations of the table nodes, with the same
// safety as the bot's SQL tool: one table, bound parameters, the end
// user's rows when the table is per user.
type TableQuerier interface {
	QueryTable(ctx context.Context, q TableQuery) (*TableResult, error)
}

// VariableStore reads and writes the bot variables of the run's end user.
type VariableStore interface {
	// Variables returns every variable of the bot with its value (the
	// stored one or the default).
	Variables(ctx context.Context, s Scope) (map[string]string, error)
	// SetVariables stores values; a keyword the bot does not define is an
	// error naming it.
	SetVariables(ctx context.Context, s Scope, values map[string]string) error
}

// HTTPDoer sends the requests of HTTP nodes; the composition root passes
// the guarded egress client.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// WorkflowLoader loads the pinned version of a workflow a sub-workflow
// node runs. It fails with errs.ErrNotFound for a workflow or version that
// does not exist in the workspace.
type WorkflowLoader interface {
	LoadWorkflow(ctx context.Context, workspaceID, workflowID, version int64) (*Definition, error)
}

// HistorySink receives the record of every node that finished, for the run
// history. It is called on the run's path and must not block: batch and
// write asynchronously.
type HistorySink interface {
	NodeFinished(ctx context.Context, rec NodeRecord)
}

// EventSink receives the events of one run, in order, on the run's path;
// it must not block. The HTTP edge turns them into a stream.
type EventSink interface {
	Emit(e Event)
}

// CheckpointStore keeps the state of interrupted runs. Its methods are
// those of eino's compose.CheckPointStore, so the engine can hand it to
// the compiled graphs. Interrupts are not built yet; the engine accepts
// the port so that a store can be wired without changing its API.
type CheckpointStore interface {
	Get(ctx context.Context, id string) ([]byte, bool, error)
	Set(ctx context.Context, id string, checkpoint []byte) error
}

// Clock tells the time; tests fix it.
type Clock func() time.Time

// Scope says whom a run acts for: the workspace and workflow, the bot whose
// variables it reads and writes, the end user and channel.
type Scope struct {
	WorkspaceID int64
	WorkflowID  int64
	BotID       int64
	// AppID is the app whose variables the run reads and assigns (0:
	// none); the caller checked it belongs to the workspace.
	AppID       int64
	UserID      string
	ConnectorID string
	// ConversationID is the conversation a chatflow run is a turn of (0:
	// none): llm nodes with chat history read its last rounds.
	ConversationID int64
	// Draft marks a builder's test run of a draft: tables use their draft
	// rows, as a bot's debug chat does.
	Draft bool
}

// TableOp is an operation of a table node.
type TableOp string

// The table operations.
const (
	TableSelect TableOp = "query"
	TableInsert TableOp = "insert"
	TableUpdate TableOp = "update"
	TableDelete TableOp = "delete"
	TableSQL    TableOp = "sql"
)

// TableQuery is one operation on one table. Values are bound as
// parameters, never spliced into SQL.
type TableQuery struct {
	Op      TableOp
	TableID int64
	Scope   Scope
	// Fields lists the columns a query returns (all when empty).
	Fields []string
	// Values are the columns an insert or update writes.
	Values map[string]any
	// Where filters query, update and delete.
	Where *TableWhere
	// OrderBy sorts a query; Limit caps its rows (0: the querier's cap).
	OrderBy []TableOrder
	Limit   int
	// SQL is the statement of a custom SQL node, with ? placeholders, and
	// Args the values bound to them in order.
	SQL  string
	Args []any
}

// TableWhere is a list of conditions joined by Logic ("and" or "or").
type TableWhere struct {
	Logic      string
	Conditions []TableCondition
}

// TableCondition compares a column with a value: Op is one of eq, ne, gt,
// gte, lt, lte, like, not_like, in, not_in, is_null, is_not_null.
type TableCondition struct {
	Field string
	Op    string
	Value any
}

// TableOrder sorts by one column.
type TableOrder struct {
	Field string
	Desc  bool
}

// TableResult is what a table operation returns.
type TableResult struct {
	Rows         []map[string]any
	RowsAffected int64
}

// AppVariableStore reads and writes the app variables of the run's end
// user (Scope.AppID, ConnectorID, UserID).
type AppVariableStore interface {
	// AppVariables returns every variable of the app with its value (the
	// stored one or the default).
	AppVariables(ctx context.Context, s Scope) (map[string]any, error)
	// SetAppVariables stores values; a variable the app does not declare,
	// or a value not of its type, is an error naming it.
	SetAppVariables(ctx context.Context, s Scope, values map[string]any) error
}

// ConversationStore gives conversation and message nodes the named
// conversations of the run's end user in the run's app (Scope.AppID,
// ConnectorID, UserID). "Default" always exists: it is made on first use
// and can be neither renamed nor deleted. Methods that name a conversation
// report found=false when the user has none of that name.
type ConversationStore interface {
	CreateConversation(ctx context.Context, s Scope, name string) (id int64, existed bool, err error)
	FindConversation(ctx context.Context, s Scope, name string) (id int64, found bool, err error)
	RenameConversation(ctx context.Context, s Scope, name, newName string) (id int64, ok, existed bool, err error)
	DeleteConversation(ctx context.Context, s Scope, name string) (found bool, err error)
	ListConversations(ctx context.Context, s Scope) ([]NamedConversation, error)
	ClearConversation(ctx context.Context, s Scope, name string) (found bool, err error)
	// History returns the last rounds of the current section, oldest first.
	History(ctx context.Context, s Scope, name string, rounds int) ([]ConversationMessage, error)
	ListMessages(ctx context.Context, s Scope, name string, q MessagePage) ([]ConversationMessage, bool, error)
	CreateMessage(ctx context.Context, s Scope, name, role, content string) (ConversationMessage, bool, error)
	EditMessage(ctx context.Context, s Scope, name string, id int64, content string) (bool, error)
	DeleteMessage(ctx context.Context, s Scope, name string, id int64) (bool, error)
}

// NamedConversation is a conversation of a run's end user.
type NamedConversation struct {
	ID   int64
	Name string
}

// ConversationMessage is a message as conversation nodes show it.
type ConversationMessage struct {
	ID      int64
	Role    string
	Content string
}

// MessagePage pages through messages, newest first: before or after an
// id, at most Limit.
type MessagePage struct {
	BeforeID, AfterID int64
	Limit             int
}

// Knowledge serves the knowledge nodes (retrieve, write, delete) and the
// knowledge of llm nodes, over the knowledge bases of the run's
// workspace (Scope.WorkspaceID). A knowledge base or document of another
// workspace is reported as not found (errs.ErrNotFound).
type Knowledge interface {
	// Retrieve recalls the chunks of the knowledge bases that best match
	// the query, best first.
	Retrieve(ctx context.Context, q KnowledgeQuery) ([]KnowledgeChunk, error)
	// AddDocument adds a file to a knowledge base and returns once it is
	// indexed, so that later nodes of the run can recall it; a document
	// whose indexing fails is an error saying why.
	AddDocument(ctx context.Context, d KnowledgeFile) (*KnowledgeDocument, error)
	// DeleteDocument removes a document of a knowledge base with its
	// chunks; a document not in that knowledge base is errs.ErrNotFound.
	DeleteDocument(ctx context.Context, s Scope, knowledgeID, documentID int64) error
}

// KnowledgeStrategy is how a retrieval ranks chunks.
type KnowledgeStrategy string

// The strategies: by meaning (vectors), both fused, or by words.
const (
	StrategySemantic KnowledgeStrategy = "semantic"
	StrategyHybrid   KnowledgeStrategy = "hybrid"
	StrategyFullText KnowledgeStrategy = "full_text"
)

// KnowledgeQuery is one retrieval.
type KnowledgeQuery struct {
	Scope        Scope
	KnowledgeIDs []int64
	Query        string
	Strategy     KnowledgeStrategy
	TopK         int     // 0: the service's default
	MinScore     float64 // chunks scoring below are dropped (0: none)
	Rerank       bool    // reorder the hits with the platform's rerank model
	Rewrite      bool    // rewrite the query from History first
	// History is the conversation before this turn, oldest first, for
	// Rewrite; empty outside a conversation.
	History []ConversationMessage
}

// KnowledgeChunk is a recalled chunk with where it comes from.
type KnowledgeChunk struct {
	KnowledgeID  int64
	DocumentID   int64
	DocumentName string
	Text         string
	Score        float64
}

// KnowledgeFile is a file a write node adds: its content was fetched by
// the engine from URL (through the guarded HTTP client).
type KnowledgeFile struct {
	Scope       Scope
	KnowledgeID int64
	Name        string // the file name, with its extension
	URL         string
	Content     []byte
	Chunking    KnowledgeChunking
}

// KnowledgeChunking is how a written document is cut: automatically, or
// at Separator into chunks of at most MaxTokens overlapping by Overlap
// tokens.
type KnowledgeChunking struct {
	Custom    bool
	Separator string
	MaxTokens int
	Overlap   int
}

// KnowledgeDocument is a document a write node added.
type KnowledgeDocument struct {
	ID   int64
	Name string
}

type scopeKey struct{}

// withScope returns ctx carrying the scope of its run.
func withScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeFrom returns the scope of the run ctx belongs to, if any: the
// ports a node calls (code runners, model providers) read from it whose
// work they do, to give each workspace its share of what they run.
func ScopeFrom(ctx context.Context) (Scope, bool) {
	s, ok := ctx.Value(scopeKey{}).(Scope)
	return s, ok
}
