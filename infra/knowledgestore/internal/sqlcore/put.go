package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// PutChunks stores chunks, replacing those with the same ids in their
// workspace, all in one transaction. It returns an errs.Invalid error for
// bad input (see knowledgestore.CheckChunks) or a vector whose length
// differs from the base's other chunks, and errs.ErrConflict when an id
// belongs to a chunk of another workspace.
func (s *Store) PutChunks(ctx context.Context, chunks []knowledge.Chunk) error {
	dims, err := knowledgestore.CheckChunks(chunks)
	if err != nil || len(chunks) == 0 {
		return err
	}
	var touched []knowledgestore.BaseKey
	err = s.inTx(ctx, "put chunks", func(tx *sql.Tx) error {
		var err error
		touched, err = s.put(ctx, tx, chunks, dims)
		return err
	})
	for _, k := range touched {
		s.cache.Drop(k)
	}
	s.warmLater(touched)
	return err
}

func (s *Store) put(ctx context.Context, tx *sql.Tx, chunks []knowledge.Chunk, dims map[int64]int) ([]knowledgestore.BaseKey, error) {
	// The revision bump comes first: it takes the write lock (SQLite) or
	// the base's row lock (MySQL), so concurrent writers of a base queue.
	bases := basesOf(chunks)
	if err := s.bump(ctx, tx, bases, true); err != nil {
		return nil, err
	}
	moved, err := s.removeOld(ctx, tx, chunks)
	if err != nil {
		return nil, err
	}
	if err := s.bump(ctx, tx, moved, false); err != nil {
		return nil, err
	}
	if err := checkBaseDims(ctx, tx, dims, chunks); err != nil {
		return nil, err
	}
	if err := s.insert(ctx, tx, chunks); err != nil {
		return nil, err
	}
	return append(bases, moved...), nil
}

// basesOf returns the bases chunks belong to, sorted so that writers lock
// revision rows in one order.
func basesOf(chunks []knowledge.Chunk) []knowledgestore.BaseKey {
	seen := map[knowledgestore.BaseKey]bool{}
	var out []knowledgestore.BaseKey
	for _, c := range chunks {
		k := knowledgestore.BaseKey{WorkspaceID: c.WorkspaceID, KnowledgeID: c.KnowledgeID}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].WorkspaceID != out[j].WorkspaceID {
			return out[i].WorkspaceID < out[j].WorkspaceID
		}
		return out[i].KnowledgeID < out[j].KnowledgeID
	})
	return out
}

// bump increments the revisions of bases; create adds missing rows.
func (s *Store) bump(ctx context.Context, tx *sql.Tx, bases []knowledgestore.BaseKey, create bool) error {
	q := "UPDATE knowledge_index_revisions SET revision = revision + 1 WHERE knowledge_id = ? AND workspace_id = ?"
	if create {
		q = s.cfg.BumpSQL
	}
	for _, k := range bases {
		if _, err := tx.ExecContext(ctx, q, k.KnowledgeID, k.WorkspaceID); err != nil {
			return fmt.Errorf("bump revision of knowledge %d: %w", k.KnowledgeID, err)
		}
	}
	return nil
}

// removeOld deletes the chunks the batch replaces (in the batch's
// workspaces) and returns the bases they were in.
func (s *Store) removeOld(ctx context.Context, tx *sql.Tx, chunks []knowledge.Chunk) ([]knowledgestore.BaseKey, error) {
	byWS := map[int64][]int64{}
	for _, c := range chunks {
		byWS[c.WorkspaceID] = append(byWS[c.WorkspaceID], c.ID)
	}
	var old []knowledgestore.BaseKey
	for ws, ids := range byWS {
		for _, part := range batches(ids) {
			cond := "workspace_id = ? AND id IN " + inList(len(part))
			args := append([]any{ws}, int64Args(part)...)
			keys, err := basesWhere(ctx, tx, cond, args)
			if err != nil {
				return nil, err
			}
			old = append(old, keys...)
			if err := s.deleteWhere(ctx, tx, cond, args); err != nil {
				return nil, err
			}
		}
	}
	return old, nil
}

func basesWhere(ctx context.Context, tx *sql.Tx, cond string, args []any) ([]knowledgestore.BaseKey, error) {
	rows, err := tx.QueryContext(ctx, "SELECT DISTINCT workspace_id, knowledge_id FROM knowledge_chunks WHERE "+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("find replaced chunks: %w", err)
	}
	defer rows.Close()
	var out []knowledgestore.BaseKey
	for rows.Next() {
		var k knowledgestore.BaseKey
		if err := rows.Scan(&k.WorkspaceID, &k.KnowledgeID); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// checkBaseDims compares the batch's vector lengths with the chunks left
// in each base.
func checkBaseDims(ctx context.Context, tx *sql.Tx, dims map[int64]int, chunks []knowledge.Chunk) error {
	for _, c := range chunks {
		want, ok := dims[c.KnowledgeID]
		if !ok || len(c.Vector) == 0 {
			continue
		}
		delete(dims, c.KnowledgeID)
		var have int
		err := tx.QueryRowContext(ctx, "SELECT dims FROM knowledge_chunks WHERE workspace_id = ? AND knowledge_id = ? AND dims > 0 LIMIT 1",
			c.WorkspaceID, c.KnowledgeID).Scan(&have)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return fmt.Errorf("check dimensions: %w", err)
		}
		if have != want {
			return knowledgestore.DimsMismatch(c.ID, want, c.KnowledgeID, have)
		}
	}
	return nil
}

const insertSQL = `INSERT INTO knowledge_chunks
	(id, workspace_id, knowledge_id, document_id, pos, body, headings, row_data, dims, vector, term_count)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`

func (s *Store) insert(ctx context.Context, tx *sql.Tx, chunks []knowledge.Chunk) error {
	stmt, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	defer stmt.Close()
	for i := range chunks {
		c := &chunks[i]
		_, err := stmt.ExecContext(ctx, c.ID, c.WorkspaceID, c.KnowledgeID, c.DocumentID, c.Position, c.Text,
			jsonOrNil(c.Headings), jsonOrNil(c.Row), len(c.Vector), knowledgestore.EncodeVector(c.Vector))
		if err != nil && s.cfg.IsDuplicate(err) {
			return errs.Conflict("chunk id %d is taken by a chunk of another workspace", c.ID)
		}
		if err != nil {
			return fmt.Errorf("insert chunk %d: %w", c.ID, err)
		}
	}
	return nil
}

// jsonOrNil stores an empty list or map as NULL, so it reads back as nil.
func jsonOrNil[T any](v T) any {
	b, _ := json.Marshal(v)
	if s := string(b); s == "null" || s == "[]" || s == "{}" {
		return nil
	}
	return string(b)
}
