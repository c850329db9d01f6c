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

func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}
