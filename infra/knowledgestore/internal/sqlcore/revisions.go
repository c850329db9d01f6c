package sqlcore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// Revisions returns the revision of each of the workspace's bases among
// knowledgeIDs that has one (a base never written has none).
func (s *Store) Revisions(ctx context.Context, workspaceID int64, knowledgeIDs []int64) (map[int64]int64, error) {
	if len(knowledgeIDs) == 0 {
		return map[int64]int64{}, nil
	}
	revs, err := s.revisions(ctx, workspaceID, knowledgeIDs)
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	return revs, nil
}

// revisions reads the current revision of each base: one indexed query
// that tells whether the cached vectors are still valid.
func (s *Store) revisions(ctx context.Context, workspaceID int64, knowledgeIDs []int64) (map[int64]int64, error) {
	in, args := paddedIn(knowledgeIDs)
	rows, err := s.query(ctx, "SELECT knowledge_id, revision FROM knowledge_index_revisions WHERE workspace_id = ? AND knowledge_id IN "+in,
		append([]any{workspaceID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]int64, len(knowledgeIDs))
	for rows.Next() {
		var kid, rev int64
		if err := rows.Scan(&kid, &rev); err != nil {
			return nil, err
		}
		out[kid] = rev
	}
	return out, rows.Err()
}

// Touch grows a base's revision, changing no chunk. Other processes load
// the base again at their next search; this one keeps its cached vectors
// at the new revision, since the bump's row lock orders it between two
// writes of chunks.
func (s *Store) Touch(ctx context.Context, workspaceID, knowledgeID int64) error {
	key := knowledgestore.BaseKey{WorkspaceID: workspaceID, KnowledgeID: knowledgeID}
	var rev int64
	err := s.inTx(ctx, "touch knowledge base", func(tx *sql.Tx) error {
		if err := s.bump(ctx, tx, []knowledgestore.BaseKey{key}, true); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT revision FROM knowledge_index_revisions WHERE knowledge_id = ? AND workspace_id = ?",
			knowledgeID, workspaceID).Scan(&rev)
	})
	if err != nil {
		return err
	}
	s.cache.Advance(key, rev-1, rev)
	return nil
}
