package sqlcore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// SearchVector returns the topK chunks of the scope nearest to vector by
// cosine similarity, best first; chunks whose vectors have other
// dimensions are not compared.
func (s *Store) SearchVector(ctx context.Context, sc knowledge.Scope, vector []float32, topK int) ([]knowledge.Hit, error) {
	if knowledgestore.EmptyScope(sc, topK) || len(vector) == 0 {
		return nil, nil
	}
	revs, err := s.revisions(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	q := knowledgestore.Normalized(vector)
	top := knowledgestore.NewTopK(topK)
	for key, rev := range revs {
		bv, err := s.vectors(ctx, key, rev)
		if err != nil {
			return nil, fmt.Errorf("search vectors: %w", err)
		}
		bv.Search(q, top)
	}
	return s.hits(ctx, sc.WorkspaceID, top.Best())
}

// SearchText returns the topK chunks of the scope that best match query,
// best first.
func (s *Store) SearchText(ctx context.Context, sc knowledge.Scope, query string, topK int) ([]knowledge.Hit, error) {
	terms := knowledgestore.QueryTerms(query)
	if knowledgestore.EmptyScope(sc, topK) || len(terms) == 0 {
		return nil, nil
	}
	scored, err := s.cfg.Text.Search(ctx, s.db, sc, terms, topK)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	return s.hits(ctx, sc.WorkspaceID, scored)
}

// revisions reads the current revision of each base of the scope: one
// indexed query that tells whether the cached vectors are still valid.
func (s *Store) revisions(ctx context.Context, sc knowledge.Scope) (map[knowledgestore.BaseKey]int64, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT knowledge_id, revision FROM knowledge_index_revisions WHERE workspace_id = ? AND knowledge_id IN "+
		inList(len(sc.KnowledgeIDs)), append([]any{sc.WorkspaceID}, int64Args(sc.KnowledgeIDs)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[knowledgestore.BaseKey]int64{}
	for rows.Next() {
		var kid, rev int64
		if err := rows.Scan(&kid, &rev); err != nil {
			return nil, err
		}
		out[knowledgestore.BaseKey{WorkspaceID: sc.WorkspaceID, KnowledgeID: kid}] = rev
	}
	return out, rows.Err()
}

// vectors returns a base's vectors at revision rev, from the cache or
// loaded (possibly at a newer revision, which is as good).
func (s *Store) vectors(ctx context.Context, key knowledgestore.BaseKey, rev int64) (*knowledgestore.BaseVectors, error) {
	if bv := s.cache.Get(key, rev); bv != nil {
		return bv, nil
	}
	bv, err := s.loadVectors(ctx, key)
	if err != nil {
		return nil, err
	}
	s.cache.Put(key, bv)
	return bv, nil
}

// loadVectors reads a base's revision and vectors in one read
// transaction, so the two agree.
func (s *Store) loadVectors(ctx context.Context, key knowledgestore.BaseKey) (*knowledgestore.BaseVectors, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	var rev int64
	err = tx.QueryRowContext(ctx, "SELECT revision FROM knowledge_index_revisions WHERE knowledge_id = ? AND workspace_id = ?",
		key.KnowledgeID, key.WorkspaceID).Scan(&rev)
	if err != nil && err != sql.ErrNoRows {
		return nil, err
	}
	where := " FROM knowledge_chunks WHERE workspace_id = ? AND knowledge_id = ? AND dims > 0"
	var n, dims int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(MAX(dims), 0)"+where, key.WorkspaceID, key.KnowledgeID).Scan(&n, &dims); err != nil {
		return nil, err
	}
	bv := knowledgestore.NewBaseVectors(rev, dims)
	bv.Reserve(n)
	rows, err := tx.QueryContext(ctx, "SELECT id, vector"+where+" ORDER BY id", key.WorkspaceID, key.KnowledgeID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return bv, readVectors(rows, bv)
}

func readVectors(rows *sql.Rows, bv *knowledgestore.BaseVectors) error {
	var id int64
	var blob sql.RawBytes // the driver's buffer, not a copy per row
	for rows.Next() {
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		if err := bv.AddEncoded(id, blob); err != nil {
			return err
		}
	}
	return rows.Err()
}
