package sqlstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// The indexing state of documents changes by conditional updates: each
// write names the state it expects (processing, the generation, an
// expired lease) and counts the rows it changed, so two processes never
// both win.

const processing = int(knowledge.StatusProcessing)

// DocumentStates reads the states of the documents of the workspace's
// knowledge bases in two queries that never read a document's text: the
// id, base and name, which come before the text in the row (SQLite then
// reads no overflow page of it), and the documents not ready, by the
// index of knowledge_id and status.
func (s *KnowledgeStore) DocumentStates(ctx context.Context, workspaceID int64, knowledgeIDs []int64) ([]knowledge.DocumentState, error) {
	if len(knowledgeIDs) == 0 {
		return nil, nil
	}
	var rows []knowledge.DocumentState
	err := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).Select("id, knowledge_id, name").
		Where("knowledge_id IN ? AND workspace_id = ?", knowledgeIDs, workspaceID).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: document states: %w", err)
	}
	var notReady []struct {
		ID     int64
		Status int
	}
	err = s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).Select("id, status").
		Where("knowledge_id IN ? AND status <> ? AND workspace_id = ?", knowledgeIDs, int(knowledge.StatusReady), workspaceID).
		Scan(&notReady).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: document states: %w", err)
	}
	status := make(map[int64]knowledge.Status, len(notReady))
	for _, r := range notReady {
		status[r.ID] = knowledge.Status(r.Status)
	}
	for i := range rows {
		rows[i].Status = knowledge.StatusReady
		if st, ok := status[rows[i].ID]; ok {
			rows[i].Status = st
		}
	}
	return rows, nil
}

// Requeue makes a document processing from the start, leased to the
// queue; errs.ErrConflict while it is processing.
func (s *KnowledgeStore) Requeue(ctx context.Context, workspaceID, id int64, now, until time.Time) (*knowledge.Document, error) {
	res := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).
		Where("id = ? AND workspace_id = ? AND status <> ?", id, workspaceID, processing).
		UpdateColumns(map[string]any{"status": processing, "reason": "", "progress": 0, "chunks": 0, "attempts": 0,
			"lease_owner": knowledge.QueuedOwner, "lease_until": dbTime(until), "started_at": nil, "updated_at": s.db.timestamp()})
	return s.afterCAS(ctx, workspaceID, id, res, "document %d is being indexed; wait until it is ready or failed")
}

// afterCAS reads the document a conditional update aimed at: the update
// changed nothing because it is gone (errs.ErrNotFound) or in another
// state (errs.ErrConflict with conflict's message).
func (s *KnowledgeStore) afterCAS(ctx context.Context, workspaceID, id int64, res *gorm.DB, conflict string) (*knowledge.Document, error) {
	if res.Error != nil {
		return nil, fmt.Errorf("sqlstore: update document %d: %w", id, res.Error)
	}
	d, err := s.GetDocument(ctx, id)
	if err != nil || (workspaceID != 0 && d.WorkspaceID != workspaceID) {
		return nil, documentNotFound(id)
	}
	if res.RowsAffected == 0 {
		return nil, errs.Conflict(conflict, id)
	}
	return d, nil
}

// Claim takes a queued or expired processing document for owner, bumping
// its generation and attempts.
func (s *KnowledgeStore) Claim(ctx context.Context, id int64, owner string, now, until time.Time) (*knowledge.Claimed, error) {
	res := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).
		Where("id = ? AND status = ? AND (lease_owner = ? OR lease_until IS NULL OR lease_until < ?)", id, processing, knowledge.QueuedOwner, dbTime(now)).
		UpdateColumns(map[string]any{"generation": gorm.Expr("generation + 1"), "attempts": gorm.Expr("attempts + 1"),
			"lease_owner": owner, "lease_until": dbTime(until), "started_at": dbTime(now), "progress": 0, "chunks": 0,
			"updated_at": s.db.timestamp()})
	d, err := s.afterCAS(ctx, 0, id, res, "document %d is not waiting to be indexed")
	if err != nil {
		return nil, err
	}
	var attempts int
	if err := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).Where("id = ?", id).Select("attempts").Scan(&attempts).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: claim document %d: %w", id, err)
	}
	return &knowledge.Claimed{Document: *d, Attempts: attempts}, nil
}

// Progress records progress for the claimed generation and extends its
// lease.
func (s *KnowledgeStore) Progress(ctx context.Context, id, generation int64, percent int, done int64, until time.Time) error {
	set := map[string]any{"lease_until": dbTime(until), "updated_at": s.db.timestamp()}
	if percent >= 0 {
		set["progress"] = min(percent, 100)
	}
	if done >= 0 {
		set["chunks"] = done
	}
	res := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).
		Where("id = ? AND generation = ? AND status = ?", id, generation, processing).UpdateColumns(set)
	return s.checkCAS(ctx, id, res, "document %d is indexed by a newer attempt, or no longer processing")
}

// checkCAS is afterCAS for writers that need no document back: the row
// (with a text document's whole body) is read only when the update
// changed nothing, to say why. Progress is written after every batch, so
// this keeps indexing from reading the body again and again.
func (s *KnowledgeStore) checkCAS(ctx context.Context, id int64, res *gorm.DB, conflict string) error {
	if res.Error == nil && res.RowsAffected > 0 {
		return nil
	}
	_, err := s.afterCAS(ctx, 0, id, res, conflict)
	return err
}

// Finish ends the claimed generation's attempt with its outcome.
func (s *KnowledgeStore) Finish(ctx context.Context, id, generation int64, o knowledge.Outcome, now time.Time) error {
	progress := 100
	if o.Status != knowledge.StatusReady {
		progress = 0
	}
	res := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).
		Where("id = ? AND generation = ? AND status = ?", id, generation, processing).
		UpdateColumns(map[string]any{"status": int(o.Status), "reason": o.Reason, "chunks": o.Chunks, "progress": progress,
			"lease_owner": "", "lease_until": nil, "refreshed_at": dbTime(now), "updated_at": s.db.timestamp()})
	return s.checkCAS(ctx, id, res, "document %d is indexed by a newer attempt, or no longer processing")
}

// Expired lists processing documents whose lease ended before now.
func (s *KnowledgeStore) Expired(ctx context.Context, now time.Time, limit int) ([]knowledge.Claimed, error) {
	var rows []knowledgeDocRow
	err := s.db.gorm.WithContext(ctx).Where("status = ? AND lease_until < ?", processing, dbTime(now)).
		Order("lease_until").Limit(limit).Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: expired documents: %w", err)
	}
	out := make([]knowledge.Claimed, len(rows))
	for i := range rows {
		d, err := docFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = knowledge.Claimed{Document: *d, Attempts: rows[i].Attempts}
	}
	return out, nil
}

// Release hands a still-expired lease of generation back to the queue.
func (s *KnowledgeStore) Release(ctx context.Context, id, generation int64, now, until time.Time) error {
	res := s.db.gorm.WithContext(ctx).Model(&knowledgeDocRow{}).
		Where("id = ? AND generation = ? AND status = ? AND lease_until < ?", id, generation, processing, dbTime(now)).
		UpdateColumns(map[string]any{"lease_owner": knowledge.QueuedOwner, "lease_until": dbTime(until), "updated_at": s.db.timestamp()})
	_, err := s.afterCAS(ctx, 0, id, res, "document %d was taken by another process")
	return err
}

// DueRefreshes lists web documents whose automatic refresh is due: their
// interval has passed since they were last indexed.
func (s *KnowledgeStore) DueRefreshes(ctx context.Context, now time.Time, limit int) ([]knowledge.Document, error) {
	var rows []knowledgeDocRow
	err := s.db.gorm.WithContext(ctx).
		Where("source = ? AND update_auto = ? AND status <> ? AND update_interval > 0", string(knowledge.SourceWeb), true, processing).
		Order("refreshed_at").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: due refreshes: %w", err)
	}
	var due []knowledgeDocRow
	for _, r := range rows { // few web documents refresh themselves: the interval is compared here, the same on both dialects
		last := r.CreatedAt
		if r.RefreshedAt != nil {
			last = *r.RefreshedAt
		}
		if !last.Add(time.Duration(r.UpdateInterval) * time.Hour).After(now) {
			due = append(due, r)
		}
		if len(due) == limit {
			break
		}
	}
	return docsFromRows(due)
}
