package sqlcore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

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
	bases, err := s.basesOf(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	q := knowledgestore.Normalized(vector)
	skip := knowledgestore.SkipOf(sc.SkipDocuments)
	top := knowledgestore.NewTopK(topK)
	for _, bv := range bases {
		bv.Search(q, skip, top)
	}
	return s.hits(ctx, sc.WorkspaceID, top.Best())
}

// SearchText returns the topK chunks of the scope that best match query
// by BM25 over the scope's statistics, best first, from the in-memory
// inverted index of each base (see knowledgestore.BaseVectors).
func (s *Store) SearchText(ctx context.Context, sc knowledge.Scope, query string, topK int) ([]knowledge.Hit, error) {
	terms := knowledgestore.QueryTerms(query)
	if knowledgestore.EmptyScope(sc, topK) || len(terms) == 0 {
		return nil, nil
	}
	bases, err := s.basesOf(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	st := knowledgestore.Stats(terms, bases...)
	skip := knowledgestore.SkipOf(sc.SkipDocuments)
	top := knowledgestore.NewTopK(topK)
	for _, bv := range bases {
		bv.SearchText(terms, st, skip, top)
	}
	return s.hits(ctx, sc.WorkspaceID, top.Best())
}

// basesOf returns the in-memory indexes of the scope's bases, cached or
// loaded, each at its current revision: the scope's own when the caller
// read them (Scope.Revisions), else read here.
func (s *Store) basesOf(ctx context.Context, sc knowledge.Scope) ([]*knowledgestore.BaseVectors, error) {
	revs := sc.Revisions
	if revs == nil {
		var err error
		if revs, err = s.revisions(ctx, sc.WorkspaceID, sc.KnowledgeIDs); err != nil {
			return nil, err
		}
	}
	out := make([]*knowledgestore.BaseVectors, 0, len(sc.KnowledgeIDs))
	for i, kid := range sc.KnowledgeIDs {
		rev, ok := revs[kid]
		if !ok || slices.Contains(sc.KnowledgeIDs[:i], kid) {
			continue // never written (no chunks), or named twice
		}
		bv, err := s.vectors(ctx, knowledgestore.BaseKey{WorkspaceID: sc.WorkspaceID, KnowledgeID: kid}, rev)
		if err != nil {
			return nil, err
		}
		out = append(out, bv)
	}
	return out, nil
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
	where := " FROM knowledge_chunks WHERE workspace_id = ? AND knowledge_id = ?"
	var n, dims int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(MAX(dims), 0)"+where, key.WorkspaceID, key.KnowledgeID).Scan(&n, &dims); err != nil {
		return nil, err
	}
	bv := knowledgestore.NewBaseVectors(rev, dims)
	bv.Reserve(n)
	rows, err := tx.QueryContext(ctx, "SELECT id, document_id, body, vector"+where+" ORDER BY id", key.WorkspaceID, key.KnowledgeID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return bv, readVectors(rows, bv)
}

// readVectors indexes every chunk's text, and its vector when it has one.
func readVectors(rows *sql.Rows, bv *knowledgestore.BaseVectors) error {
	var id, doc int64
	var body, blob sql.RawBytes // the driver's buffers, not a copy per row
	for rows.Next() {
		if err := rows.Scan(&id, &doc, &body, &blob); err != nil {
			return err
		}
		bv.AddText(id, doc, string(body))
		if len(blob) == 0 {
			continue
		}
		if err := bv.AddEncoded(id, doc, blob); err != nil {
			return err
		}
	}
	return rows.Err()
}
