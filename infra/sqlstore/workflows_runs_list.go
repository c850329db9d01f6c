package sqlstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	appworkflow "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

var _ appworkflow.RunLister = (*WorkflowRunStore)(nil)

// ListRuns returns a page of a workflow's runs, newest first, and how many
// match f. It reads the run rows only (not their node records), on the
// index of (workflow_id, created_at).
func (s *WorkflowRunStore) ListRuns(ctx context.Context, workflowID int64, f appworkflow.RunFilter, p identity.Page) ([]workflow.Run, int64, error) {
	query := func() *gorm.DB { return runFilter(s.db.gorm.WithContext(ctx).Model(&workflowRunRow{}), workflowID, f) }
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count workflow runs: %w", err)
	}
	var rows []workflowRunRow
	q := query().Omit("nodes").Order("created_at DESC, id DESC")
	if err := page(q, p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list workflow runs: %w", err)
	}
	out := make([]workflow.Run, len(rows))
	for i := range rows {
		out[i] = *runFromRow(&rows[i])
	}
	return out, total, nil
}

// runFilter adds the conditions of f to q.
func runFilter(q *gorm.DB, workflowID int64, f appworkflow.RunFilter) *gorm.DB {
	q = q.Where("workflow_id = ?", workflowID)
	if f.Status != "" {
		q = q.Where("status = ?", string(f.Status))
	}
	if f.Mode != "" {
		q = q.Where("mode = ?", string(f.Mode))
	}
	if f.UserID != "" {
		q = q.Where("user_id = ?", f.UserID)
	}
	if !f.From.IsZero() {
		q = q.Where("created_at >= ?", dbTime(f.From))
	}
	if !f.To.IsZero() {
		q = q.Where("created_at < ?", dbTime(f.To))
	}
	return q
}
