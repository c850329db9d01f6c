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

func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}
