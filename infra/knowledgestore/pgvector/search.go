package pgvector

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// SearchVector returns the topK chunks of the scope nearest to vector by
// cosine similarity, best first; chunks whose vectors have other lengths
// are not compared. It runs on the HNSW index of the vector's length, in a
// transaction whose settings (SET LOCAL) let pgvector 0.8+ continue the
// scan until the workspace and base filters leave topK rows.
func (ix *Index) SearchVector(ctx context.Context, s knowledge.Scope, vector []float32, topK int) ([]knowledge.Hit, error) {
	if knowledgestore.EmptyScope(s, topK) || len(vector) == 0 {
		return nil, nil
	}
	q := vectorQuery(len(vector))
	var hits []knowledge.Hit
	err := pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		if err := ix.tuneScan(ctx, tx, topK); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, q, pgv.NewVector(vector), s.WorkspaceID, s.KnowledgeIDs, topK, skipped(s))
		if err != nil {
			return err
		}
		hits, err = collectHits(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	// relaxed_order may return neighbours slightly out of order.
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits, nil
}

// vectorQuery is the search over vectors of d dimensions. The cast and
// the dims predicate repeat the partial index's own, so the planner can
// use it; d is an int, safe to format into the SQL.
func vectorQuery(d int) string {
	return fmt.Sprintf(`SELECT %s, 1 - (embedding::vector(%d) <=> $1::vector(%d)) AS score
		FROM knowledge_chunks WHERE dims = %d AND workspace_id = $2 AND knowledge_id = ANY($3)
		AND NOT document_id = ANY($5)
		ORDER BY embedding::vector(%d) <=> $1::vector(%d) LIMIT $4`, chunkCols, d, d, d, d, d)
}

// tuneScan sets, for this transaction only, a search beam of at least
// topK and (pgvector 0.8+) iterative scans.
func (ix *Index) tuneScan(ctx context.Context, tx pgx.Tx, topK int) error {
	ef := min(max(40, 2*topK), 1000)
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL hnsw.ef_search = %d", ef)); err != nil {
		return err
	}
	if ix.iterative {
		_, err := tx.Exec(ctx, "SET LOCAL hnsw.iterative_scan = relaxed_order")
		return err
	}
	return nil
}

// SearchText returns the topK chunks of the scope that best match query,
// ranked by ts_rank_cd (normalized by length) on the query's rarer terms,
// best first.
func (ix *Index) SearchText(ctx context.Context, s knowledge.Scope, query string, topK int) ([]knowledge.Hit, error) {
	terms := knowledgestore.QueryTerms(query)
	if knowledgestore.EmptyScope(s, topK) || len(terms) == 0 {
		return nil, nil
	}
	terms, err := ix.rareTerms(ctx, s, terms)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	if len(terms) == 0 {
		return nil, nil
	}
	q := `SELECT ` + chunkCols + `, ts_rank_cd(tsv, q, 1)::float8 AS score
		FROM knowledge_chunks, to_tsquery('simple', $1) q
		WHERE tsv @@ q AND workspace_id = $2 AND knowledge_id = ANY($3) AND NOT document_id = ANY($5)
		ORDER BY score DESC, id LIMIT $4`
	rows, err := ix.pool.Query(ctx, q, tsquery(terms), s.WorkspaceID, s.KnowledgeIDs, topK, skipped(s))
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	hits, err := collectHits(rows)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	return hits, nil
}

// skipped is the scope's documents to leave out, never nil (ANY of an
// empty array is false).
func skipped(s knowledge.Scope) []int64 {
	if s.SkipDocuments == nil {
		return []int64{}
	}
	return s.SkipDocuments
}

// tsquery ORs the terms, each quoted as a tsquery string.
func tsquery(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		t = strings.ReplaceAll(t, `\`, `\\`)
		q[i] = "'" + strings.ReplaceAll(t, "'", "''") + "'"
	}
	return strings.Join(q, " | ")
}

func collectHits(rows pgx.Rows) ([]knowledge.Hit, error) {
	defer rows.Close()
	var out []knowledge.Hit
	for rows.Next() {
		var h knowledge.Hit
		if err := scanChunk(rows, &h.Chunk, &h.Score); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}
