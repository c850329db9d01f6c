package sqlstore

import (
	"context"
	"fmt"

	appworkflow "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/workflow"
)

var _ appworkflow.ConversationRuns = (*WorkflowRunStore)(nil)

// WaitingRun returns the newest run of a workflow, started in mode as a
// turn of a conversation, that waits for an answer; nil when none. It
// reads the index of conversation_id.
func (s *WorkflowRunStore) WaitingRun(ctx context.Context, workflowID, conversationID int64, mode workflow.RunMode) (*workflow.Run, error) {
	var rows []workflowRunRow
	err := s.db.gorm.WithContext(ctx).Omit("Nodes").
		Where("conversation_id = ? AND workflow_id = ? AND status = ? AND mode = ?",
			conversationID, workflowID, string(workflow.RunInterrupted), string(mode)).
		Order("created_at DESC, id DESC").Limit(1).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: the waiting run of conversation %d: %w", conversationID, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return runFromRow(&rows[0]), nil
}
