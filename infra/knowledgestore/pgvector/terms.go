package pgvector

import (
	"context"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// termStatsQuery counts the scope's chunks and, per term (each given as a
// one-term tsquery), the scope's chunks holding it, in the terms' order.
const termStatsQuery = `SELECT
	(SELECT count(*) FROM knowledge_chunks WHERE workspace_id = $1 AND knowledge_id = ANY($2)),
	array(SELECT (SELECT count(*) FROM knowledge_chunks
			WHERE workspace_id = $1 AND knowledge_id = ANY($2) AND tsv @@ to_tsquery('simple', u.q))
		FROM unnest($3::text[]) WITH ORDINALITY u(q, i) ORDER BY u.i)`

// rareTerms returns the terms worth searching for
// (knowledgestore.SelectTerms) by their document frequency in the scope:
// a term most chunks hold would make the search rank nearly every chunk.
func (ix *Index) rareTerms(ctx context.Context, s knowledge.Scope, terms []string) ([]string, error) {
	queries := make([]string, len(terms))
	for i, t := range terms {
		queries[i] = tsquery([]string{t})
	}
	var docs int64
	var counts []int64
	if err := ix.pool.QueryRow(ctx, termStatsQuery, s.WorkspaceID, s.KnowledgeIDs, queries).Scan(&docs, &counts); err != nil {
		return nil, err
	}
	df := make(map[string]int64, len(terms))
	for i, t := range terms {
		if i < len(counts) {
			df[t] = counts[i]
		}
	}
	return knowledgestore.SelectTerms(df, docs), nil
}
