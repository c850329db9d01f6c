package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"
)

// schemaVersion is the version of the tables below, recorded in
// knowledge_index_schema; each version adds a step to schemaSteps.
const schemaVersion = 2

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

// schemaV2 drops the term table and the chunk length index: full text is
// BM25 on each process's in-memory index of a base (see sqlcore), which
// nothing else read, and writing a row per term took a share of every
// ingestion. term_count stays (0 in new rows): dropping a column rebuilds
// the table.
var schemaV2 = []string{
	`DROP TABLE IF EXISTS knowledge_chunk_terms`,
	`ALTER TABLE knowledge_chunks DROP INDEX knowledge_chunks_len`, // MySQL 8 has no IF EXISTS here: see isNoSuchKey
}

// schemaSteps[i] brings a database from version i to version i+1.
var schemaSteps = [][]string{schemaV1, schemaV2}

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
	// DDL commits at once in MySQL: a step that stops half-way runs again
	// from its start, so every statement is written to run twice.
	for i := v.Int64; i < schemaVersion; i++ {
		for _, stmt := range schemaSteps[i] {
			if _, err := conn.ExecContext(ctx, stmt); err != nil && !isNoSuchKey(err) {
				return fmt.Errorf("create schema: version %d: %w", i+1, err)
			}
		}
		_, err = conn.ExecContext(ctx, `INSERT INTO knowledge_index_schema (version)
			SELECT ? FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM knowledge_index_schema WHERE version = ?)`, i+1, i+1)
		if err != nil {
			return fmt.Errorf("create schema: version %d: %w", i+1, err)
		}
	}
	return nil
}

// isNoSuchKey reports error 1091 (can't drop a key or column that does
// not exist): a step run again after it dropped it.
func isNoSuchKey(err error) bool {
	var e *gomysql.MySQLError
	return errors.As(err, &e) && e.Number == 1091
}
