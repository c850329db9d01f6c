package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// WorkflowStore keeps workflows in the workflows table and their published
// versions in workflow_versions. Every write and list names the workspace
// it acts in; a workflow of another workspace is reported as unknown.
type WorkflowStore struct{ db *DB }

var _ workflow.Store = (*WorkflowStore)(nil)

// Workflows returns the store of workflows and their versions.
func (db *DB) Workflows() *WorkflowStore { return &WorkflowStore{db: db} }

type workflowRow struct {
	ID               int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID      int64
	CreatorID        int64
	Name             string
	Description      string
	Definition       string
	DraftRevision    int64
	PublishedVersion int64
	PublishedAt      *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

func (workflowRow) TableName() string { return "workflows" }

func workflowToRow(w *workflow.Workflow) *workflowRow {
	return &workflowRow{ID: w.ID, WorkspaceID: w.WorkspaceID, CreatorID: w.CreatorID, Name: w.Name, Description: w.Description,
		Definition: string(w.Definition), DraftRevision: w.DraftRevision, PublishedVersion: w.PublishedVersion,
		PublishedAt: dbTimePtr(w.PublishedAt), CreatedAt: dbTime(w.CreatedAt), UpdatedAt: dbTime(w.UpdatedAt)}
}

func workflowFromRow(r *workflowRow) *workflow.Workflow {
	return &workflow.Workflow{ID: r.ID, WorkspaceID: r.WorkspaceID, CreatorID: r.CreatorID, Name: r.Name,
		Description: r.Description, Definition: definitionBytes(r.Definition), DraftRevision: r.DraftRevision,
		PublishedVersion: r.PublishedVersion, PublishedAt: utcPtr(r.PublishedAt), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// CreateWorkflow stores w, assigning its ID when zero, its timestamps and
// DraftRevision 1; it is not published. It returns errs.ErrNotFound when
// the workspace does not exist and errs.ErrConflict when the ID is taken.
func (s *WorkflowStore) CreateWorkflow(ctx context.Context, w *workflow.Workflow) error {
	if w.ID == 0 {
		w.ID = s.db.ids.Next()
	}
	w.DraftRevision, w.PublishedVersion, w.PublishedAt = 1, 0, nil
	w.CreatedAt = s.db.timestamp()
	w.UpdatedAt = w.CreatedAt
	err := s.db.gorm.WithContext(ctx).Create(workflowToRow(w)).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workspaceNotFound(w.WorkspaceID)
	case isDuplicate(err):
		return errs.Conflict("workflow %d already exists", w.ID)
	}
	return fmt.Errorf("sqlstore: create workflow: %w", err)
}

// GetWorkflow returns the workflow with id, or errs.ErrNotFound.
func (s *WorkflowStore) GetWorkflow(ctx context.Context, id int64) (*workflow.Workflow, error) {
	var row workflowRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, workflow.NotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get workflow: %w", err)
	}
	return workflowFromRow(&row), nil
}

// ListWorkflows returns one page of the workflows of a workspace, newest
// first, without their definitions, and how many match in all;
// f.PublishedOnly keeps the published ones.
func (s *WorkflowStore) ListWorkflows(ctx context.Context, workspaceID int64, f workflow.ListFilter, p identity.Page) ([]workflow.Workflow, int64, error) {
	query := func() *gorm.DB {
		q := s.db.gorm.WithContext(ctx).Model(&workflowRow{}).Where("workspace_id = ?", workspaceID)
		if f.PublishedOnly {
			q = q.Where("published_version > 0")
		}
		return q
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count workflows: %w", err)
	}
	var rows []workflowRow
	q := query().Omit("definition").Order("created_at DESC, id DESC")
	if err := page(q, p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list workflows: %w", err)
	}
	out := make([]workflow.Workflow, len(rows))
	for i := range rows {
		out[i] = *workflowFromRow(&rows[i])
	}
	return out, total, nil
}

// UpdateWorkflow runs fn on the workflow inside a transaction, with its row
// locked, and saves the name, description and definition fn leaves, with
// DraftRevision increased and UpdatedAt set; the rest is kept whatever fn
// does. It returns errs.ErrNotFound when the workflow is not in the
// workspace, and fn's error unchanged, writing nothing, when fn fails.
func (s *WorkflowStore) UpdateWorkflow(ctx context.Context, workspaceID, id int64, fn func(*workflow.Workflow) error) (*workflow.Workflow, error) {
	row, err := updateLocked(ctx, s.db, "update workflow", func() error { return workflow.NotFound(id) }, func(r *workflowRow) error {
		w := workflowFromRow(r)
		if err := fn(w); err != nil {
			return err
		}
		r.Name, r.Description, r.Definition = w.Name, w.Description, string(w.Definition)
		r.DraftRevision++
		r.UpdatedAt = s.db.timestamp()
		return nil
	}, "id = ? AND workspace_id = ?", id, workspaceID)
	if err != nil {
		return nil, err
	}
	return workflowFromRow(row), nil
}

// DeleteWorkflow removes the workflow with its versions, runs and node
// records, in one transaction. It returns errs.ErrNotFound when the
// workflow is not in the workspace.
func (s *WorkflowStore) DeleteWorkflow(ctx context.Context, workspaceID, id int64) error {
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Children first: the foreign keys cascade, but deleting explicitly
		// keeps this true on a database created without them. A workflow of
		// another workspace rolls everything back below.
		if err := tx.Where("run_id IN (?)", tx.Model(&workflowRunRow{}).Select("id").Where("workflow_id = ?", id)).
			Delete(&nodeRunRow{}).Error; err != nil {
			return err
		}
		for _, child := range []any{&workflowRunRow{}, &workflowVersionRow{}} {
			if err := tx.Where("workflow_id = ?", id).Delete(child).Error; err != nil {
				return err
			}
		}
		res := tx.Where("id = ? AND workspace_id = ?", id, workspaceID).Delete(&workflowRow{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return workflow.NotFound(id)
		}
		return nil
	})
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: delete workflow: %w", err)
	}
	return err
}

// definitionBytes returns a stored definition; nil when the query left it
// out (lists).
func definitionBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}
