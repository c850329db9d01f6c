package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

const chunkCols = "id, workspace_id, knowledge_id, document_id, pos, body, headings, row_data"

// GetChunk returns one chunk of the workspace's knowledge base with its
// vector, or an error matching errs.ErrNotFound.
func (s *Store) GetChunk(ctx context.Context, workspaceID, knowledgeID, id int64) (*knowledge.Chunk, error) {
	row := s.db.QueryRowContext(ctx, "SELECT "+chunkCols+", vector FROM knowledge_chunks WHERE id = ? AND workspace_id = ? AND knowledge_id = ?",
		id, workspaceID, knowledgeID)
	var c knowledge.Chunk
	var vec []byte
	err := scanChunk(row, &c, &vec)
	if err == sql.ErrNoRows {
		return nil, errs.NotFound("chunk", strconv.FormatInt(id, 10))
	}
	if err != nil {
		return nil, fmt.Errorf("get chunk: %w", err)
	}
	if c.Vector, err = knowledgestore.DecodeVector(vec); err != nil {
		return nil, fmt.Errorf("get chunk %d: %w", id, err)
	}
	return &c, nil
}

// ListChunks returns one page of a document's chunks in position order,
// without vectors, and the document's chunk count. A page size of 0 or
// less returns every chunk.
func (s *Store) ListChunks(ctx context.Context, workspaceID, knowledgeID, documentID int64, p identity.Page) ([]knowledge.Chunk, int64, error) {
	where := " FROM knowledge_chunks WHERE workspace_id = ? AND knowledge_id = ? AND document_id = ?"
	args := []any{workspaceID, knowledgeID, documentID}
	var total int64
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*)"+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count chunks: %w", err)
	}
	q := "SELECT " + chunkCols + where + " ORDER BY pos, id"
	if p.Size > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, p.Size, p.Offset())
	}
	chunks, err := s.queryChunks(ctx, q, args)
	if err != nil {
		return nil, 0, fmt.Errorf("list chunks: %w", err)
	}
	return chunks, total, nil
}

// hits loads the chunks of scored ids (of workspace ws) in score order;
// chunks deleted meanwhile are left out.
func (s *Store) hits(ctx context.Context, ws int64, scored []knowledgestore.Scored) ([]knowledge.Hit, error) {
	if len(scored) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(scored))
	for i, sc := range scored {
		ids[i] = sc.ID
	}
	// By primary key alone: with the workspace in the WHERE clause SQLite
	// picks the workspace's index and reads the whole base. The workspace
	// is checked here instead.
	in, args := paddedIn(ids)
	rows, err := s.query(ctx, "SELECT "+chunkCols+" FROM knowledge_chunks WHERE id IN "+in, args...)
	if err != nil {
		return nil, fmt.Errorf("load hits: %w", err)
	}
	chunks, err := scanChunks(rows)
	if err != nil {
		return nil, fmt.Errorf("load hits: %w", err)
	}
	byID := make(map[int64]knowledge.Chunk, len(chunks))
	for _, c := range chunks {
		if c.WorkspaceID == ws {
			byID[c.ID] = c
		}
	}
	out := make([]knowledge.Hit, 0, len(scored))
	for _, sc := range scored {
		if c, ok := byID[sc.ID]; ok {
			out = append(out, knowledge.Hit{Chunk: c, Score: sc.Score})
		}
	}
	return out, nil
}

func (s *Store) queryChunks(ctx context.Context, q string, args []any) ([]knowledge.Chunk, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return scanChunks(rows)
}

// scanChunks reads chunkCols of every row and closes rows.
func scanChunks(rows *sql.Rows) ([]knowledge.Chunk, error) {
	defer rows.Close()
	var out []knowledge.Chunk
	for rows.Next() {
		var c knowledge.Chunk
		if err := scanChunk(rows, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// scanChunk reads chunkCols and then extra columns.
func scanChunk(row interface{ Scan(...any) error }, c *knowledge.Chunk, extra ...any) error {
	var headings, rowData sql.NullString
	dest := append([]any{&c.ID, &c.WorkspaceID, &c.KnowledgeID, &c.DocumentID, &c.Position, &c.Text, &headings, &rowData}, extra...)
	if err := row.Scan(dest...); err != nil {
		return err
	}
	if headings.Valid {
		if err := json.Unmarshal([]byte(headings.String), &c.Headings); err != nil {
			return fmt.Errorf("chunk %d headings: %w", c.ID, err)
		}
	}
	if rowData.Valid {
		if err := json.Unmarshal([]byte(rowData.String), &c.Row); err != nil {
			return fmt.Errorf("chunk %d row: %w", c.ID, err)
		}
	}
	return nil
}
