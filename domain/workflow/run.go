package workflow

import (
	"context"
	"time"
)

// RunMode is how a run was asked for.
type RunMode string

// The run modes. Coze numbers them 0 (sync), 1 (stream) and 2 (async);
// test runs are the console's runs of a draft.
const (
	RunSync   RunMode = "sync"
	RunStream RunMode = "stream"
	RunAsync  RunMode = "async"
	RunTest   RunMode = "test"
)

// RunStatus is where a run stands.
type RunStatus string

// The run statuses. Interrupted and Cancelled are for runs that wait for
// an answer and runs stopped by a caller.
const (
	RunRunning     RunStatus = "running"
	RunSucceeded   RunStatus = "success"
	RunFailed      RunStatus = "fail"
	RunInterrupted RunStatus = "interrupted"
	RunCancelled   RunStatus = "cancelled"
)

// Run is one execution of a workflow (Coze's execute_id names it).
type Run struct {
	ID          int64
	WorkflowID  int64
	WorkspaceID int64
	// Version is the version run; 0 is the draft at DraftRevision.
	Version       int64
	DraftRevision int64
	Mode          RunMode
	Status        RunStatus
	CallerID      int64 // the user whose token started the run
	BotID         int64 // the bot whose variables the run uses; 0 for none
	AppID         int64 // the app whose variables the run uses; 0 for none
	// ConversationID is the conversation the run is a turn of
	// (/v1/workflows/chat); 0 for none.
	ConversationID int64
	UserID         string // the end user (Coze's connector_uid)
	ConnectorID    string
	Input          string // the parameters, as JSON
	Output         string // what the end node returned, as JSON
	Error          string
	InputTokens    int64
	OutputTokens   int64
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     *time.Time
}

// NodeRun is the record of one node execution of a run.
type NodeRun struct {
	RunID  int64
	Seq    int64 // the order in which nodes finished
	NodeID string
	Type   string
	Title  string
	// Parent is the path of the loop, batch or sub-workflow nodes it ran
	// in; Index its iteration or item (-1 when none).
	Parent       string
	Index        int
	Status       string
	Handled      bool
	Input        string // JSON
	Output       string // JSON
	Error        string
	Logs         string
	StartedAt    time.Time
	Duration     time.Duration
	InputTokens  int64
	OutputTokens int64
	Attempts     int
}

// RunStore keeps runs and their node records.
type RunStore interface {
	// CreateRun stores a new run; its ID is assigned by the caller.
	CreateRun(ctx context.Context, r *Run) error
	// FinishRun writes a run's status, output, error, tokens and finish
	// time.
	FinishRun(ctx context.Context, r *Run) error
	// GetRun returns a run, or errs.ErrNotFound.
	GetRun(ctx context.Context, id int64) (*Run, error)
	// AddNodeRuns appends node records, in one statement.
	AddNodeRuns(ctx context.Context, recs []NodeRun) error
	// ListNodeRuns returns the node records of a run in finishing order.
	ListNodeRuns(ctx context.Context, runID int64) ([]NodeRun, error)
}
