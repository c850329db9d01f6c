package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// WorkflowRunStore keeps workflow runs in workflow_runs and the record of
// their nodes in workflow_node_runs.
type WorkflowRunStore struct{ db *DB }

var _ workflow.RunStore = (*WorkflowRunStore)(nil)

// WorkflowRuns returns the store of workflow runs.
func (db *DB) WorkflowRuns() *WorkflowRunStore { return &WorkflowRunStore{db: db} }

type workflowRunRow struct {
	ID            int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkflowID    int64
	WorkspaceID   int64
	Version       int64
	DraftRevision int64
	Mode          string
	Status        string
	CallerID      int64
	BotID         int64
	AppID         int64
	// ConversationID is 0 for runs that are not a conversation's turn.
	ConversationID int64
	UserID         string
	ConnectorID    string
	Input          string
	Output         string
	Error          string
	InputTokens    int64
	OutputTokens   int64
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     *time.Time
	// Nodes holds the node records of a run saved in one piece (SaveRun),
	// as encodeNodes writes them; NULL when they are in workflow_node_runs.
	Nodes *string
	// Instance is the process instance running a run that holds no lease
	// (StartRun); "" for the others.
	Instance string
}

func (workflowRunRow) TableName() string { return "workflow_runs" }

type nodeRunRow struct {
	RunID        int64 `gorm:"primaryKey;autoIncrement:false"`
	Seq          int64 `gorm:"primaryKey;autoIncrement:false"`
	NodeID       string
	Type         string
	Title        string
	Parent       string
	Idx          int `gorm:"column:idx"`
	Status       string
	Handled      bool
	Input        string
	Output       string
	Error        string
	Logs         string
	StartedAt    time.Time
	DurationUS   int64 `gorm:"column:duration_us"`
	InputTokens  int64
	OutputTokens int64
	Attempts     int
}

func (nodeRunRow) TableName() string { return "workflow_node_runs" }

func runFromRow(r *workflowRunRow) *workflow.Run {
	return &workflow.Run{ID: r.ID, WorkflowID: r.WorkflowID, WorkspaceID: r.WorkspaceID, Version: r.Version,
		DraftRevision: r.DraftRevision, Mode: workflow.RunMode(r.Mode), Status: workflow.RunStatus(r.Status),
		CallerID: r.CallerID, BotID: r.BotID, AppID: r.AppID, ConversationID: r.ConversationID, UserID: r.UserID,
		ConnectorID: r.ConnectorID, Input: r.Input, Output: r.Output, Error: r.Error, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), FinishedAt: utcPtr(r.FinishedAt)}
}

// runRow is the row of a run.
func runRow(r *workflow.Run) *workflowRunRow {
	return &workflowRunRow{ID: r.ID, WorkflowID: r.WorkflowID, WorkspaceID: r.WorkspaceID, Version: r.Version,
		DraftRevision: r.DraftRevision, Mode: string(r.Mode), Status: string(r.Status), CallerID: r.CallerID,
		BotID: r.BotID, AppID: r.AppID, ConversationID: r.ConversationID, UserID: r.UserID, ConnectorID: r.ConnectorID,
		Input: r.Input, Output: r.Output, Error: r.Error,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		FinishedAt: dbTimePtr(r.FinishedAt)}
}

// CreateRun stores a new run; r.ID must be set. It sets the timestamps and
// returns errs.ErrNotFound when the workflow does not exist.
func (s *WorkflowRunStore) CreateRun(ctx context.Context, r *workflow.Run) error {
	r.CreatedAt = s.db.timestamp()
	r.UpdatedAt = r.CreatedAt
	err := s.db.gorm.WithContext(ctx).Create(runRow(r)).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workflow.NotFound(r.WorkflowID)
	case isDuplicate(err):
		return errs.Conflict("run %d already exists", r.ID)
	}
	return fmt.Errorf("sqlstore: create workflow run: %w", err)
}

// FinishRun writes the outcome of a run: status, output, error, tokens and
// finish time (set now when nil). It returns errs.ErrNotFound for an
// unknown run.
func (s *WorkflowRunStore) FinishRun(ctx context.Context, r *workflow.Run) error {
	now := s.db.timestamp()
	if r.FinishedAt == nil {
		r.FinishedAt = &now
	}
	r.UpdatedAt = now
	res := s.db.gorm.WithContext(ctx).Model(&workflowRunRow{}).Where("id = ?", r.ID).UpdateColumns(map[string]any{
		"status": string(r.Status), "output": r.Output, "error": r.Error, "input_tokens": r.InputTokens,
		"output_tokens": r.OutputTokens, "updated_at": now, "finished_at": dbTimePtr(r.FinishedAt)})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: finish workflow run: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return runNotFound(r.ID)
	}
	return nil
}

func runNotFound(id int64) error { return errs.NotFound("run", strconv.FormatInt(id, 10)) }

// GetRun returns a run, or errs.ErrNotFound. It leaves the node records
// of the row where they are: ListNodeRuns reads them.
func (s *WorkflowRunStore) GetRun(ctx context.Context, id int64) (*workflow.Run, error) {
	var row workflowRunRow
	if err := s.db.gorm.WithContext(ctx).Omit("Nodes").Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, runNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get workflow run: %w", err)
	}
	return runFromRow(&row), nil
}

// AddNodeRuns appends node records in one statement. Records of a run that
// does not exist are refused with errs.ErrNotFound.
func (s *WorkflowRunStore) AddNodeRuns(ctx context.Context, recs []workflow.NodeRun) error {
	if len(recs) == 0 {
		return nil
	}
	err := s.db.gorm.WithContext(ctx).CreateInBatches(nodeRows(recs), nodeChunkRows).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return errs.NotFound("run", strconv.FormatInt(recs[0].RunID, 10))
	}
	return fmt.Errorf("sqlstore: add workflow node runs: %w", err)
}

// nodeRows are the rows of node records.
func nodeRows(recs []workflow.NodeRun) []nodeRunRow {
	rows := make([]nodeRunRow, len(recs))
	for i, r := range recs {
		rows[i] = nodeRunRow{RunID: r.RunID, Seq: r.Seq, NodeID: r.NodeID, Type: r.Type, Title: r.Title, Parent: r.Parent,
			Idx: r.Index, Status: r.Status, Handled: r.Handled, Input: r.Input, Output: r.Output, Error: r.Error, Logs: r.Logs,
			StartedAt: dbTime(r.StartedAt), DurationUS: r.Duration.Microseconds(), InputTokens: r.InputTokens,
			OutputTokens: r.OutputTokens, Attempts: r.Attempts}
	}
	return rows
}

// ListNodeRuns returns the node records of a run in finishing order: those
// of workflow_node_runs or, when there are none, those its row holds.
func (s *WorkflowRunStore) ListNodeRuns(ctx context.Context, runID int64) ([]workflow.NodeRun, error) {
	var rows []nodeRunRow
	if err := s.db.gorm.WithContext(ctx).Where("run_id = ?", runID).Order("seq").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list workflow node runs: %w", err)
	}
	if len(rows) == 0 {
		return s.inlineNodes(ctx, runID)
	}
	out := make([]workflow.NodeRun, len(rows))
	for i, r := range rows {
		out[i] = workflow.NodeRun{RunID: r.RunID, Seq: r.Seq, NodeID: r.NodeID, Type: r.Type, Title: r.Title, Parent: r.Parent,
			Index: r.Idx, Status: r.Status, Handled: r.Handled, Input: r.Input, Output: r.Output, Error: r.Error, Logs: r.Logs,
			StartedAt: r.StartedAt.UTC(), Duration: time.Duration(r.DurationUS) * time.Microsecond,
			InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, Attempts: r.Attempts}
	}
	return out, nil
}

// inlineNodes returns the node records a run's row holds (none when the
// run is unknown or keeps them in workflow_node_runs).
func (s *WorkflowRunStore) inlineNodes(ctx context.Context, runID int64) ([]workflow.NodeRun, error) {
	var nodes []sql.NullString
	if err := s.db.gorm.WithContext(ctx).Model(&workflowRunRow{}).Where("id = ?", runID).Pluck("nodes", &nodes).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list workflow node runs: %w", err)
	}
	if len(nodes) == 0 || !nodes[0].Valid {
		return []workflow.NodeRun{}, nil
	}
	out, err := decodeNodes(runID, nodes[0].String)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: node records of run %d: %w", runID, err)
	}
	return out, nil
}
