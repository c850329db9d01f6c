package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// termIndex is full text on the knowledge_chunk_terms table.
type termIndex struct{}

// termRows is how many terms one INSERT carries.
const termRows = 500

func (termIndex) Put(ctx context.Context, tx *sql.Tx, chunks []knowledge.Chunk) error {
	var args []any
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		q := "INSERT INTO knowledge_chunk_terms (chunk_id, workspace_id, knowledge_id, term, tf, doc_len) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", len(args)/6), ", ")
		_, err := tx.ExecContext(ctx, q, args...)
		args = args[:0]
		return err
	}
	for i := range chunks {
		c := &chunks[i]
		terms := knowledgestore.IndexTerms(c.Text)
		for term, tf := range frequencies(terms) {
			args = append(args, c.ID, c.WorkspaceID, c.KnowledgeID, term, tf, len(terms))
			if len(args) >= termRows*6 {
				if err := flush(); err != nil {
					return fmt.Errorf("index terms: %w", err)
				}
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("index terms: %w", err)
	}
	return nil
}

func frequencies(terms []string) map[string]int {
	tf := map[string]int{}
	for _, t := range terms {
		tf[t]++
	}
	return tf
}

func (termIndex) Delete(ctx context.Context, tx *sql.Tx, ids []int64) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM knowledge_chunk_terms WHERE chunk_id IN "+inList(len(ids)), args...)
	return err
}

// Search computes BM25 over the scope: the scope's chunk count and mean
// length, each term's document frequency in the scope (common terms are
// then left out, see knowledgestore.SelectTerms), then the scores in the
// database, which returns only the topK. Every query reads the
// covering index of knowledge_chunk_terms or of knowledge_chunks.
func (termIndex) Search(ctx context.Context, db *sql.DB, s knowledge.Scope, terms []string, topK int) ([]knowledgestore.Scored, error) {
	scopeArgs := []any{s.WorkspaceID}
	for _, id := range s.KnowledgeIDs {
		scopeArgs = append(scopeArgs, id)
	}
	var docs int64
	var avg sql.NullFloat64
	err := db.QueryRowContext(ctx, "SELECT COUNT(*), AVG(term_count) FROM knowledge_chunks WHERE workspace_id = ? AND knowledge_id IN "+
		inList(len(s.KnowledgeIDs)), scopeArgs...).Scan(&docs, &avg)
	if err != nil || docs == 0 {
		return nil, err
	}
	df, err := frequenciesInScope(ctx, db, len(s.KnowledgeIDs), scopeArgs, terms)
	if err != nil || len(df) == 0 {
		return nil, err
	}
	df = onlyTerms(df, knowledgestore.SelectTerms(df, docs))
	return scoreInDB(ctx, db, len(s.KnowledgeIDs), scopeArgs, df, docs, max(avg.Float64, 1), topK)
}

// onlyTerms returns the frequencies of the given terms: common terms are
// left out of the scoring, which would otherwise read nearly every chunk's
// row (their idf, and so their share of a score, is small).
func onlyTerms(df map[string]int64, terms []string) map[string]int64 {
	out := make(map[string]int64, len(terms))
	for _, t := range terms {
		out[t] = df[t]
	}
	return out
}

// termsFrom is the FROM and WHERE of the term queries: the scope's rows
// of the given terms.
func termsFrom(bases, terms int) string {
	return " FROM knowledge_chunk_terms WHERE workspace_id = ? AND knowledge_id IN " + inList(bases) + " AND term IN " + inList(terms)
}

// frequenciesInScope returns, per term the scope holds, its number of
// chunks.
func frequenciesInScope(ctx context.Context, db *sql.DB, bases int, scopeArgs []any, terms []string) (map[string]int64, error) {
	args := append([]any{}, scopeArgs...)
	for _, t := range terms {
		args = append(args, t)
	}
	rows, err := db.QueryContext(ctx, "SELECT term, COUNT(*)"+termsFrom(bases, len(terms))+" GROUP BY term", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var term string
		var n int64
		if err := rows.Scan(&term, &n); err != nil {
			return nil, err
		}
		out[term] = n
	}
	return out, rows.Err()
}

// scoreInDB sums, per chunk, idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b
// * len / avg)) over the matched terms, each term's idf given as a CASE.
func scoreInDB(ctx context.Context, db *sql.DB, bases int, scopeArgs []any, df map[string]int64, docs int64, avg float64, topK int) ([]knowledgestore.Scored, error) {
	var idf strings.Builder
	var args, termArgs []any
	idf.WriteString("CASE term")
	for term, n := range df {
		idf.WriteString(" WHEN ? THEN ?")
		args = append(args, term, knowledgestore.BM25IDF(docs, n))
		termArgs = append(termArgs, term)
	}
	idf.WriteString(" ELSE 0 END")
	q := fmt.Sprintf("SELECT chunk_id, SUM((%s) * tf * %g / (tf + %g * (1 - %g + %g * doc_len / ?))) AS score",
		idf.String(), knowledgestore.BM25K1+1, knowledgestore.BM25K1, knowledgestore.BM25B, knowledgestore.BM25B) +
		termsFrom(bases, len(termArgs)) + " GROUP BY chunk_id ORDER BY score DESC, chunk_id LIMIT ?"
	args = append(append(append(append(args, avg), scopeArgs...), termArgs...), topK)
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []knowledgestore.Scored
	for rows.Next() {
		var sc knowledgestore.Scored
		if err := rows.Scan(&sc.ID, &sc.Score); err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}
