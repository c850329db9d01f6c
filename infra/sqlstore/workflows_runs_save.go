package sqlstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// The limits of a run's node records kept in its row (workflow_runs.nodes):
// beyond them the records go to workflow_node_runs, in statements of at
// most nodeChunkRows rows and about nodeChunkBytes bytes, well under
// MySQL's smallest usual max_allowed_packet.
const (
	inlineMaxNodes = 1000
	inlineMaxBytes = 1 << 20
	nodeChunkRows  = 200
	nodeChunkBytes = 1 << 20
)

// SaveRun stores a run that has ended, with the records of its nodes, in
// one write: one INSERT whose row carries the records, or, when they are
// too many or too large for one row, one transaction that inserts the run
// and then its records in chunks. r.ID must be set; CreatedAt is when the
// run started (now when zero); UpdatedAt and FinishedAt (when nil) are
// set to now. It returns errs.ErrNotFound when the workflow does not
// exist and errs.ErrConflict when the run does.
func (s *WorkflowRunStore) SaveRun(ctx context.Context, r *workflow.Run, nodes []workflow.NodeRun) error {
	now := s.db.timestamp()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	r.CreatedAt, r.UpdatedAt = dbTime(r.CreatedAt), now
	if r.FinishedAt == nil {
		r.FinishedAt = &now
	}
	row := runRow(r)
	var err error
	if inline, ok := encodeNodes(nodes); ok {
		row.Nodes = &inline
		err = s.db.gorm.WithContext(ctx).Create(row).Error
	} else {
		err = s.saveWithRows(ctx, row, nodes)
	}
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workflow.NotFound(r.WorkflowID)
	case isDuplicate(err):
		return errs.Conflict("run %d already exists", r.ID)
	}
	return fmt.Errorf("sqlstore: save workflow run: %w", err)
}

// saveWithRows inserts the run, then its records in workflow_node_runs,
// in one transaction.
func (s *WorkflowRunStore) saveWithRows(ctx context.Context, row *workflowRunRow, nodes []workflow.NodeRun) error {
	return s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(row).Error; err != nil {
			return err
		}
		for _, chunk := range nodeChunks(nodeRows(nodes)) {
			if err := tx.Create(&chunk).Error; err != nil {
				return err
			}
		}
		return nil
	})
}

// nodeChunks splits rows into statements of bounded rows and bytes.
func nodeChunks(rows []nodeRunRow) [][]nodeRunRow {
	var out [][]nodeRunRow
	start, size := 0, 0
	for i, r := range rows {
		n := len(r.Input) + len(r.Output) + len(r.Error) + len(r.Logs) + len(r.Title) + len(r.Parent) + 128
		if i > start && (i-start >= nodeChunkRows || size+n > nodeChunkBytes) {
			out, start, size = append(out, rows[start:i]), i, 0
		}
		size += n
	}
	if start < len(rows) {
		out = append(out, rows[start:])
	}
	return out
}
