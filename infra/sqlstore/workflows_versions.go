package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

type workflowVersionRow struct {
	WorkflowID  int64 `gorm:"primaryKey;autoIncrement:false"`
	Number      int64 `gorm:"primaryKey;autoIncrement:false"`
	Name        string
	Description string
	Definition  string
	PublisherID int64
	CreatedAt   time.Time
}

func (workflowVersionRow) TableName() string { return "workflow_versions" }

func workflowVersionFromRow(r *workflowVersionRow) *workflow.Version {
	return &workflow.Version{WorkflowID: r.WorkflowID, Number: r.Number, Name: r.Name, Description: r.Description,
		Definition: definitionBytes(r.Definition), PublisherID: r.PublisherID, CreatedAt: r.CreatedAt.UTC()}
}

// PublishWorkflow stores v as the next version of workflow v.WorkflowID and
// makes it the published one, in one transaction that holds the workflow's
// row lock, so concurrent publishes get distinct, consecutive numbers. It
// sets v.Number and v.CreatedAt, and the workflow's PublishedVersion and
// PublishedAt; the draft is left alone. It returns errs.ErrNotFound when
// the workflow is not in the workspace.
func (s *WorkflowStore) PublishWorkflow(ctx context.Context, workspaceID int64, v *workflow.Version) error {
	row := &workflowVersionRow{WorkflowID: v.WorkflowID, Name: v.Name, Description: v.Description,
		Definition: string(v.Definition), PublisherID: v.PublisherID, CreatedAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var w workflowRow
		err := forUpdate(tx).Select("id").Where("id = ? AND workspace_id = ?", v.WorkflowID, workspaceID).Take(&w).Error
		if isNoRow(err) {
			return workflow.NotFound(v.WorkflowID)
		}
		if err != nil {
			return err
		}
		var last int64
		if err := tx.Model(&workflowVersionRow{}).Where("workflow_id = ?", v.WorkflowID).Select("COALESCE(MAX(number), 0)").Scan(&last).Error; err != nil {
			return err
		}
		row.Number = last + 1
		if err := tx.Create(row).Error; err != nil {
			return err
		}
		return tx.Model(&workflowRow{}).Where("id = ?", v.WorkflowID).
			UpdateColumns(map[string]any{"published_version": row.Number, "published_at": row.CreatedAt}).Error
	})
	if err != nil {
		if isDomain(err) {
			return err
		}
		return fmt.Errorf("sqlstore: publish workflow %d: %w", v.WorkflowID, err)
	}
	v.Number, v.CreatedAt = row.Number, row.CreatedAt
	return nil
}

// GetVersion returns version number of a workflow, or errs.ErrNotFound.
func (s *WorkflowStore) GetVersion(ctx context.Context, workflowID, number int64) (*workflow.Version, error) {
	var row workflowVersionRow
	if err := s.db.gorm.WithContext(ctx).Where("workflow_id = ? AND number = ?", workflowID, number).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, errs.NotFound("version", fmt.Sprintf("%d of workflow %d", number, workflowID))
		}
		return nil, fmt.Errorf("sqlstore: get workflow version: %w", err)
	}
	return workflowVersionFromRow(&row), nil
}

// ListVersions returns every version of a workflow, newest first, without
// definitions; none for an unknown workflow.
func (s *WorkflowStore) ListVersions(ctx context.Context, workflowID int64) ([]workflow.Version, error) {
	var rows []workflowVersionRow
	err := s.db.gorm.WithContext(ctx).Omit("definition").Where("workflow_id = ?", workflowID).Order("number DESC").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list workflow versions: %w", err)
	}
	out := make([]workflow.Version, len(rows))
	for i := range rows {
		out[i] = *workflowVersionFromRow(&rows[i])
	}
	return out, nil
}
