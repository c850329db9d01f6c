package pgvector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// PutChunks stores chunks, replacing those with the same ids in their
// workspace, in one transaction. It returns an errs.Invalid error for bad
// input (see knowledgestore.CheckChunks) or a vector whose length differs
// from the base's other chunks, and errs.ErrConflict when an id belongs to
// a chunk of another workspace.
func (ix *Index) PutChunks(ctx context.Context, chunks []knowledge.Chunk) error {
	dims, err := knowledgestore.CheckChunks(chunks)
	if err != nil || len(chunks) == 0 {
		return err
	}
	for _, d := range dims {
		if err := ix.ensureHNSW(ctx, d); err != nil {
			return fmt.Errorf("put chunks: %w", err)
		}
	}
	err = pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error { return put(ctx, tx, chunks, dims) })
	if err != nil {
		return fmt.Errorf("put chunks: %w", err)
	}
	return nil
}

func put(ctx context.Context, tx pgx.Tx, chunks []knowledge.Chunk, dims map[int64]int) error {
	if err := lockBases(ctx, tx, chunks); err != nil {
		return err
	}
	if err := removeOld(ctx, tx, chunks); err != nil {
		return err
	}
	if err := checkBaseDims(ctx, tx, chunks, dims); err != nil {
		return err
	}
	return insert(ctx, tx, chunks)
}

// lockBases upserts the batch's base rows in a fixed order: the row locks
// queue concurrent writers of a base.
func lockBases(ctx context.Context, tx pgx.Tx, chunks []knowledge.Chunk) error {
	seen := map[[2]int64]bool{}
	var keys [][2]int64
	for _, c := range chunks {
		k := [2]int64{c.KnowledgeID, c.WorkspaceID}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		_, err := tx.Exec(ctx, bumpSQL, k[0], k[1])
		if err != nil {
			return fmt.Errorf("lock knowledge base %d: %w", k[0], err)
		}
	}
	return nil
}

func removeOld(ctx context.Context, tx pgx.Tx, chunks []knowledge.Chunk) error {
	byWS := map[int64][]int64{}
	for _, c := range chunks {
		byWS[c.WorkspaceID] = append(byWS[c.WorkspaceID], c.ID)
	}
	for ws, ids := range byWS {
		if _, err := tx.Exec(ctx, "DELETE FROM knowledge_chunks WHERE workspace_id = $1 AND id = ANY($2)", ws, ids); err != nil {
			return fmt.Errorf("remove replaced chunks: %w", err)
		}
	}
	return nil
}

func checkBaseDims(ctx context.Context, tx pgx.Tx, chunks []knowledge.Chunk, dims map[int64]int) error {
	for _, c := range chunks {
		want, ok := dims[c.KnowledgeID]
		if !ok || len(c.Vector) == 0 {
			continue
		}
		delete(dims, c.KnowledgeID)
		var have int
		err := tx.QueryRow(ctx, "SELECT dims FROM knowledge_chunks WHERE workspace_id = $1 AND knowledge_id = $2 AND dims > 0 LIMIT 1",
			c.WorkspaceID, c.KnowledgeID).Scan(&have)
		if errors.Is(err, pgx.ErrNoRows) {
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
	(id, workspace_id, knowledge_id, document_id, pos, body, headings, row_data, dims, embedding, terms)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::vector, $11)`

// insert sends the rows in one batch; the first failure ends it.
func insert(ctx context.Context, tx pgx.Tx, chunks []knowledge.Chunk) error {
	b := &pgx.Batch{}
	for i := range chunks {
		c := &chunks[i]
		var vec any
		if len(c.Vector) > 0 {
			vec = pgv.NewVector(c.Vector)
		}
		b.Queue(insertSQL, c.ID, c.WorkspaceID, c.KnowledgeID, c.DocumentID, c.Position, c.Text,
			jsonOrNil(c.Headings), jsonOrNil(c.Row), len(c.Vector), vec,
			strings.Join(knowledgestore.IndexTerms(c.Text), " "))
	}
	br := tx.SendBatch(ctx, b)
	for i := range chunks {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			if isDuplicate(err) {
				return errs.Conflict("chunk id %d is taken by a chunk of another workspace", chunks[i].ID)
			}
			return fmt.Errorf("insert chunk %d: %w", chunks[i].ID, err)
		}
	}
	return br.Close()
}

// jsonOrNil stores an empty list or map as NULL, so it reads back as nil.
func jsonOrNil[T any](v T) *string {
	b, _ := json.Marshal(v)
	if s := string(b); s == "null" || s == "[]" || s == "{}" {
		return nil
	}
	s := string(b)
	return &s
}
