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
		q := "INSERT INTO knowledge_chunk_terms (chunk_id, workspace_id, knowledge_id, term, tf) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", len(args)/5), ", ")
		_, err := tx.ExecContext(ctx, q, args...)
		args = args[:0]
		return err
	}
	for i := range chunks {
		c := &chunks[i]
		for term, tf := range frequencies(knowledgestore.IndexTerms(c.Text)) {
			args = append(args, c.ID, c.WorkspaceID, c.KnowledgeID, term, tf)
			if len(args) >= termRows*5 {
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
// length, each term's document frequency in the scope, and the matching
// chunks' term frequencies, from two indexed queries.
func (termIndex) Search(ctx context.Context, db *sql.DB, s knowledge.Scope, terms []string, topK int) ([]knowledgestore.Scored, error) {
	scope := "workspace_id = ? AND knowledge_id IN " + inList(len(s.KnowledgeIDs))
	scopeArgs := []any{s.WorkspaceID}
	for _, id := range s.KnowledgeIDs {
		scopeArgs = append(scopeArgs, id)
	}
	var m knowledgestore.BM25
	var avg sql.NullFloat64
	err := db.QueryRowContext(ctx, "SELECT COUNT(*), AVG(term_count) FROM knowledge_chunks WHERE "+scope, scopeArgs...).Scan(&m.Docs, &avg)
	if err != nil {
		return nil, err
	}
	m.AvgLen = avg.Float64
	matches, err := matching(ctx, db, len(s.KnowledgeIDs), scopeArgs, terms)
	if err != nil {
		return nil, err
	}
	m.DF = map[string]int64{}
	for _, mt := range matches {
		for term := range mt.tf {
			m.DF[term]++
		}
	}
	top := knowledgestore.NewTopK(topK)
	for id, mt := range matches {
		top.Offer(id, m.Score(mt.tf, mt.length))
	}
	return top.Best(), nil
}

type match struct {
	tf     map[string]int
	length int
}

// matching reads, per chunk of the scope holding any of terms, the
// frequencies of those terms and the chunk's length.
func matching(ctx context.Context, db *sql.DB, bases int, scopeArgs []any, terms []string) (map[int64]*match, error) {
	q := `SELECT t.chunk_id, t.term, t.tf, c.term_count FROM knowledge_chunk_terms t
		JOIN knowledge_chunks c ON c.id = t.chunk_id
		WHERE t.workspace_id = ? AND t.knowledge_id IN ` + inList(bases) + ` AND t.term IN ` + inList(len(terms))
	args := append([]any{}, scopeArgs...)
	for _, t := range terms {
		args = append(args, t)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*match{}
	for rows.Next() {
		var id int64
		var term string
		var tf, length int
		if err := rows.Scan(&id, &term, &tf, &length); err != nil {
			return nil, err
		}
		if out[id] == nil {
			out[id] = &match{tf: map[string]int{}, length: length}
		}
		out[id].tf[term] = tf
	}
	return out, rows.Err()
}

func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}
