package mysql

import (
	"context"
	"database/sql"
	"fmt"
)

// schemaVersion is the version of the tables below, recorded in
// knowledge_index_schema; a later version adds numbered steps.
const schemaVersion = 1

var schemaV1 = []string{
	`CREATE TABLE IF NOT EXISTS knowledge_chunks (
		id BIGINT NOT NULL PRIMARY KEY,
		workspace_id BIGINT NOT NULL,
		knowledge_id BIGINT NOT NULL,
		document_id BIGINT NOT NULL,
		pos INT NOT NULL,
		body MEDIUMTEXT NOT NULL,
		headings TEXT NULL,
		row_data MEDIUMTEXT NULL,
		dims INT NOT NULL,
		vector MEDIUMBLOB NULL,
		term_count INT NOT NULL,
		KEY knowledge_chunks_doc (workspace_id, knowledge_id, document_id, pos),
		KEY knowledge_chunks_len (workspace_id, knowledge_id, term_count)
	) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
	`CREATE TABLE IF NOT EXISTS knowledge_index_revisions (
		knowledge_id BIGINT NOT NULL,
		workspace_id BIGINT NOT NULL,
		revision BIGINT NOT NULL,
		PRIMARY KEY (knowledge_id, workspace_id)
	) ENGINE=InnoDB`,
	// One row per distinct term of a chunk with its frequency and the
	// chunk's length in terms; terms compare as bytes (they are
	// lower-cased in Go). The second index covers the searches.
	`CREATE TABLE IF NOT EXISTS knowledge_chunk_terms (
		chunk_id BIGINT NOT NULL,
		workspace_id BIGINT NOT NULL,
		knowledge_id BIGINT NOT NULL,
		term VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
		tf INT NOT NULL,
		doc_len INT NOT NULL,
		PRIMARY KEY (chunk_id, term),
		KEY knowledge_chunk_terms_term (knowledge_id, term, workspace_id, chunk_id, tf, doc_len)
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS knowledge_index_schema (version INT NOT NULL) ENGINE=InnoDB`,
}

// migrate creates the tables once, under a named lock of the database:
// processes starting together wait for each other (the version row's
// insert by two of them at once could deadlock).
func migrate(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer conn.Close()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(CONCAT('pergola_knowledge_schema:', DATABASE()), 60)").Scan(&got); err != nil {
		return fmt.Errorf("lock the schema: %w", err)
	}
	if got.Int64 != 1 {
		return fmt.Errorf("lock the schema: another process held it for 60s")
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_LOCK(CONCAT('pergola_knowledge_schema:', DATABASE()))")
	}()
	return migrateLocked(ctx, conn)
}

func migrateLocked(ctx context.Context, conn *sql.Conn) error {
	var v sql.NullInt64
	err := conn.QueryRowContext(ctx, "SELECT MAX(version) FROM knowledge_index_schema").Scan(&v)
	if err == nil && v.Int64 > schemaVersion {
		return fmt.Errorf("schema version %d is newer than this build's %d", v.Int64, schemaVersion)
	}
	if err == nil && v.Int64 == schemaVersion {
		return nil
	}
	for _, stmt := range schemaV1 {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO knowledge_index_schema (version)
		SELECT ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM knowledge_index_schema WHERE version = ?)`, schemaVersion, schemaVersion)
	return err
}
