package pgvector

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

const schemaVersion = 1

var schemaV1 = []string{
	`CREATE TABLE IF NOT EXISTS knowledge_chunks (
		id BIGINT PRIMARY KEY,
		workspace_id BIGINT NOT NULL,
		knowledge_id BIGINT NOT NULL,
		document_id BIGINT NOT NULL,
		pos INT NOT NULL,
		body TEXT NOT NULL,
		headings TEXT,
		row_data TEXT,
		dims INT NOT NULL,
		embedding vector,
		terms TEXT NOT NULL,
		tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED)`,
	`CREATE INDEX IF NOT EXISTS knowledge_chunks_doc ON knowledge_chunks (workspace_id, knowledge_id, document_id, pos)`,
	`CREATE INDEX IF NOT EXISTS knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv)`,
	// A row per base, locked first by every write of the base, so that
	// concurrent writers cannot mix vector lengths in one base.
	`CREATE TABLE IF NOT EXISTS knowledge_index_bases (
		knowledge_id BIGINT NOT NULL,
		workspace_id BIGINT NOT NULL,
		revision BIGINT NOT NULL,
		PRIMARY KEY (knowledge_id, workspace_id))`,
	`CREATE TABLE IF NOT EXISTS knowledge_index_schema (version INT NOT NULL)`,
}

// migrate creates the extension and tables if missing and learns the
// pgvector version.
func (ix *Index) migrate(ctx context.Context) error {
	if _, err := ix.pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil && !alreadyExists(err) {
		return fmt.Errorf("create extension vector (is pgvector installed?): %w", err)
	}
	var extversion string
	if err := ix.pool.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&extversion); err != nil {
		return fmt.Errorf("pgvector version: %w", err)
	}
	ix.iterative = supportsIterative(extversion)
	var v *int
	err := ix.pool.QueryRow(ctx, "SELECT MAX(version) FROM knowledge_index_schema").Scan(&v)
	if err == nil && v != nil && *v > schemaVersion {
		return fmt.Errorf("schema version %d is newer than this build's %d", *v, schemaVersion)
	}
	if err == nil && v != nil && *v == schemaVersion {
		return nil
	}
	for _, stmt := range schemaV1 {
		if _, err := ix.pool.Exec(ctx, stmt); err != nil && !alreadyExists(err) {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	_, err = ix.pool.Exec(ctx, `INSERT INTO knowledge_index_schema (version)
		SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM knowledge_index_schema WHERE version = $1)`, schemaVersion)
	return err
}

// alreadyExists reports a race lost to another process creating the same
// object (IF NOT EXISTS is not atomic in PostgreSQL).
func alreadyExists(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "23505" || pg.Code == "42P07" || pg.Code == "42710")
}

// isDuplicate reports a primary-key violation.
func isDuplicate(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}

// maxHNSWDims is the longest vector pgvector's HNSW indexes; longer ones
// are searched exactly.
const maxHNSWDims = 2000

// ensureHNSW creates the HNSW index of vectors of length dims once. It is
// created before the first such vector is written, so it builds at once.
func (ix *Index) ensureHNSW(ctx context.Context, dims int) error {
	if dims <= 0 || dims > maxHNSWDims {
		return nil
	}
	if _, ok := ix.indexed.Load(dims); ok {
		return nil
	}
	q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS knowledge_chunks_hnsw_%d ON knowledge_chunks
		USING hnsw ((embedding::vector(%d)) vector_cosine_ops) WHERE dims = %d`, dims, dims, dims)
	if _, err := ix.pool.Exec(ctx, q); err != nil && !alreadyExists(err) {
		return fmt.Errorf("create HNSW index for %d dimensions: %w", dims, err)
	}
	ix.indexed.Store(dims, true)
	return nil
}
