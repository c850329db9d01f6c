package pgvector

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// bumpSQL grows a base's revision, creating its row at 1; it also takes
// the row's lock, which orders the base's writers.
const bumpSQL = `INSERT INTO knowledge_index_bases (knowledge_id, workspace_id, revision) VALUES ($1, $2, 1)
	ON CONFLICT (knowledge_id, workspace_id) DO UPDATE SET revision = knowledge_index_bases.revision + 1`

// Revisions returns the revision of each of the workspace's bases among
// knowledgeIDs that has one (a base never written has none).
func (ix *Index) Revisions(ctx context.Context, workspaceID int64, knowledgeIDs []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(knowledgeIDs))
	if len(knowledgeIDs) == 0 {
		return out, nil
	}
	rows, err := ix.pool.Query(ctx, "SELECT knowledge_id, revision FROM knowledge_index_bases WHERE workspace_id = $1 AND knowledge_id = ANY($2)",
		workspaceID, knowledgeIDs)
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kid, rev int64
		if err := rows.Scan(&kid, &rev); err != nil {
			return nil, fmt.Errorf("read revisions: %w", err)
		}
		out[kid] = rev
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	return out, nil
}

// Touch grows a base's revision, changing no chunk.
func (ix *Index) Touch(ctx context.Context, workspaceID, knowledgeID int64) error {
	if _, err := ix.pool.Exec(ctx, bumpSQL, knowledgeID, workspaceID); err != nil {
		return fmt.Errorf("touch knowledge base %d: %w", knowledgeID, err)
	}
	return nil
}

// deleteIn runs a delete of a base's chunks and grows the base's revision,
// in one transaction.
func (ix *Index) deleteIn(ctx context.Context, workspaceID, knowledgeID int64, q string, args ...any) error {
	return pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, bumpSQL, knowledgeID, workspaceID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, q, args...)
		return err
	})
}
