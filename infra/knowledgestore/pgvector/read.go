package pgvector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

const chunkCols = "id, workspace_id, knowledge_id, document_id, pos, body, headings, row_data"

// GetChunk returns one chunk of the workspace's knowledge base with its
// vector, or an error matching errs.ErrNotFound.
func (ix *Index) GetChunk(ctx context.Context, workspaceID, knowledgeID, id int64) (*knowledge.Chunk, error) {
	row := ix.pool.QueryRow(ctx, "SELECT "+chunkCols+", embedding::text FROM knowledge_chunks WHERE id = $1 AND workspace_id = $2 AND knowledge_id = $3",
		id, workspaceID, knowledgeID)
	var c knowledge.Chunk
	var vec *string
	err := scanChunk(row, &c, &vec)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errs.NotFound("chunk", strconv.FormatInt(id, 10))
	}
	if err != nil {
		return nil, fmt.Errorf("get chunk: %w", err)
	}
	if vec != nil {
		var v pgv.Vector
		if err := v.Scan(*vec); err != nil {
			return nil, fmt.Errorf("get chunk %d: vector: %w", id, err)
		}
		c.Vector = v.Slice()
	}
	return &c, nil
}

// ListChunks returns one page of a document's chunks in position order,
// without vectors, and the document's chunk count. A page size of 0 or
// less returns every chunk.
func (ix *Index) ListChunks(ctx context.Context, workspaceID, knowledgeID, documentID int64, p identity.Page) ([]knowledge.Chunk, int64, error) {
	where := " FROM knowledge_chunks WHERE workspace_id = $1 AND knowledge_id = $2 AND document_id = $3"
	args := []any{workspaceID, knowledgeID, documentID}
	var total int64
	if err := ix.pool.QueryRow(ctx, "SELECT COUNT(*)"+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count chunks: %w", err)
	}
	q := "SELECT " + chunkCols + where + " ORDER BY pos, id"
	if p.Size > 0 {
		q += " LIMIT $4 OFFSET $5"
		args = append(args, p.Size, p.Offset())
	}
	rows, err := ix.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list chunks: %w", err)
	}
	chunks, err := collect(rows, func(r pgx.Rows, c *knowledge.Chunk) error { return scanChunk(r, c) })
	if err != nil {
		return nil, 0, fmt.Errorf("list chunks: %w", err)
	}
	return chunks, total, nil
}

// collect scans every row into a chunk.
func collect(rows pgx.Rows, scan func(pgx.Rows, *knowledge.Chunk) error) ([]knowledge.Chunk, error) {
	defer rows.Close()
	var out []knowledge.Chunk
	for rows.Next() {
		var c knowledge.Chunk
		if err := scan(rows, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// scanChunk reads chunkCols and then extra columns.
func scanChunk(row pgx.Row, c *knowledge.Chunk, extra ...any) error {
	var headings, rowData *string
	dest := append([]any{&c.ID, &c.WorkspaceID, &c.KnowledgeID, &c.DocumentID, &c.Position, &c.Text, &headings, &rowData}, extra...)
	if err := row.Scan(dest...); err != nil {
		return err
	}
	if headings != nil {
		if err := json.Unmarshal([]byte(*headings), &c.Headings); err != nil {
			return fmt.Errorf("chunk %d headings: %w", c.ID, err)
		}
	}
	if rowData != nil {
		if err := json.Unmarshal([]byte(*rowData), &c.Row); err != nil {
			return fmt.Errorf("chunk %d row: %w", c.ID, err)
		}
	}
	return nil
}
