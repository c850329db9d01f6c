package sqlcore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// DeleteDocument removes every chunk of a document of the workspace's
// knowledge base; none left is not an error.
func (s *Store) DeleteDocument(ctx context.Context, workspaceID, knowledgeID, documentID int64) error {
	return s.deleteIn(ctx, "delete document", workspaceID, knowledgeID,
		"workspace_id = ? AND knowledge_id = ? AND document_id = ?", []any{workspaceID, knowledgeID, documentID})
}

// DeleteBase removes every chunk of the workspace's knowledge base. The
// base may take vectors of another length afterwards.
func (s *Store) DeleteBase(ctx context.Context, workspaceID, knowledgeID int64) error {
	return s.deleteIn(ctx, "delete knowledge base", workspaceID, knowledgeID,
		"workspace_id = ? AND knowledge_id = ?", []any{workspaceID, knowledgeID})
}

// DeleteChunks removes the chunks of the workspace's knowledge base with
// the given ids; other ids are ignored.
func (s *Store) DeleteChunks(ctx context.Context, workspaceID, knowledgeID int64, ids []int64) error {
	for _, part := range batches(ids) {
		cond := "workspace_id = ? AND knowledge_id = ? AND id IN " + inList(len(part))
		args := append([]any{workspaceID, knowledgeID}, int64Args(part)...)
		if err := s.deleteIn(ctx, "delete chunks", workspaceID, knowledgeID, cond, args); err != nil {
			return err
		}
	}
	return nil
}

// deleteIn deletes the chunks of one base that cond selects and bumps the
// base's revision, in one transaction.
func (s *Store) deleteIn(ctx context.Context, what string, ws, kid int64, cond string, args []any) error {
	key := knowledgestore.BaseKey{WorkspaceID: ws, KnowledgeID: kid}
	err := s.inTx(ctx, what, func(tx *sql.Tx) error {
		if err := s.bump(ctx, tx, []knowledgestore.BaseKey{key}, false); err != nil {
			return err
		}
		return s.deleteWhere(ctx, tx, cond, args)
	})
	s.cache.Drop(key)
	s.warmLater([]knowledgestore.BaseKey{key})
	return err
}

// deleteWhere deletes the chunks cond selects by primary key: statements that touch only the rows they delete, so that
// concurrent writers of other documents never wait on each other.
func (s *Store) deleteWhere(ctx context.Context, tx *sql.Tx, cond string, args []any) error {
	ids, err := idsWhere(ctx, tx, cond, args)
	if err != nil {
		return fmt.Errorf("find chunks: %w", err)
	}
	for _, part := range batches(ids) {
		if _, err := tx.ExecContext(ctx, "DELETE FROM knowledge_chunks WHERE id IN "+inList(len(part)), int64Args(part)...); err != nil {
			return fmt.Errorf("delete chunks: %w", err)
		}
	}
	return nil
}

func idsWhere(ctx context.Context, tx *sql.Tx, cond string, args []any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id FROM knowledge_chunks WHERE "+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
