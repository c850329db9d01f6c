package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// ftsIndex is full text on FTS5.
type ftsIndex struct{}

func (ftsIndex) Put(ctx context.Context, tx *sql.Tx, chunks []knowledge.Chunk) error {
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO knowledge_chunks_fts (rowid, terms) VALUES (?, ?)")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i := range chunks {
		terms := strings.Join(knowledgestore.IndexTerms(chunks[i].Text), " ")
		if _, err := stmt.ExecContext(ctx, chunks[i].ID, terms); err != nil {
			return fmt.Errorf("index chunk %d: %w", chunks[i].ID, err)
		}
	}
	return nil
}

func (ftsIndex) Delete(ctx context.Context, tx *sql.Tx, ids []int64) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM knowledge_chunks_fts WHERE rowid IN "+inList(len(ids)), args...)
	return err
}

// Search ranks by bm25() (negative, lower is better; made positive) on
// the query's rarer terms (see rareTerms). Its statistics are those of
// the whole file, which orders a scope's chunks as BM25 does.
func (ftsIndex) Search(ctx context.Context, db *sql.DB, s knowledge.Scope, terms []string, topK int) ([]knowledgestore.Scored, error) {
	terms, err := rareTerms(ctx, db, terms)
	if err != nil || len(terms) == 0 {
		return nil, err
	}
	q := `SELECT c.id, -bm25(knowledge_chunks_fts) AS score
		FROM knowledge_chunks_fts JOIN knowledge_chunks c ON c.id = knowledge_chunks_fts.rowid
		WHERE knowledge_chunks_fts MATCH ? AND c.workspace_id = ? AND c.knowledge_id IN ` + inList(len(s.KnowledgeIDs)) + `
		ORDER BY score DESC, c.id LIMIT ?`
	args := []any{matchExpr(terms), s.WorkspaceID}
	for _, id := range s.KnowledgeIDs {
		args = append(args, id)
	}
	rows, err := db.QueryContext(ctx, q, append(args, topK)...)
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

// rareTerms returns the terms worth matching (knowledgestore.SelectTerms)
// by their document frequency in the file: a term most chunks hold would
// make FTS5 score nearly every chunk for a tiny share of the ranking.
func rareTerms(ctx context.Context, db *sql.DB, terms []string) ([]string, error) {
	var docs int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM knowledge_chunks").Scan(&docs); err != nil {
		return nil, err
	}
	args := make([]any, len(terms))
	for i, t := range terms {
		args[i] = t
	}
	rows, err := db.QueryContext(ctx, "SELECT term, doc FROM knowledge_chunks_fts_vocab WHERE term IN "+inList(len(terms)), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	df := map[string]int64{}
	for rows.Next() {
		var term string
		var n int64
		if err := rows.Scan(&term, &n); err != nil {
			return nil, err
		}
		df[term] = n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return knowledgestore.SelectTerms(df, docs), nil
}

// matchExpr ORs the terms, each quoted so FTS5 reads it as a string.
func matchExpr(terms []string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(q, " OR ")
}

func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}
