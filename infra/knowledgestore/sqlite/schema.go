package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// schemaVersion is the version of the tables below; a later version adds
// its changes as further steps keyed by number.
const schemaVersion = 3

var schemaV1 = []string{
	`CREATE TABLE IF NOT EXISTS knowledge_chunks (
		id INTEGER PRIMARY KEY,
		workspace_id INTEGER NOT NULL,
		knowledge_id INTEGER NOT NULL,
		document_id INTEGER NOT NULL,
		pos INTEGER NOT NULL,
		body TEXT NOT NULL,
		headings TEXT,
		row_data TEXT,
		dims INTEGER NOT NULL,
		vector BLOB,
		term_count INTEGER NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS knowledge_chunks_doc ON knowledge_chunks (workspace_id, knowledge_id, document_id, pos)`,
	`CREATE TABLE IF NOT EXISTS knowledge_index_revisions (
		knowledge_id INTEGER NOT NULL,
		workspace_id INTEGER NOT NULL,
		revision INTEGER NOT NULL,
		PRIMARY KEY (knowledge_id, workspace_id))`,
	// The terms column holds the chunk's terms cut in Go, one token each
	// for unicode61, so FTS5's bm25() ranks on the same terms every engine
	// indexes. rowid is the chunk id.
	`CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_chunks_fts USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0')`,
	`CREATE TABLE IF NOT EXISTS knowledge_index_schema (version INTEGER NOT NULL)`,
}

// schemaV2 adds a view of the full-text index's document frequency per
// term, which a search reads to leave out terms most chunks hold.
var schemaV2 = []string{
	`CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_chunks_fts_vocab USING fts5vocab(knowledge_chunks_fts, row)`,
}

// schemaV3 drops the FTS5 index and its vocabulary: full text is BM25 on
// the in-memory index of each base (see sqlcore), which nothing else
// read, and writing it took a share of every ingestion.
var schemaV3 = []string{
	`DROP TABLE IF EXISTS knowledge_chunks_fts_vocab`,
	`DROP TABLE IF EXISTS knowledge_chunks_fts`,
}

// schemaSteps[i] brings a file from version i to version i+1.
var schemaSteps = [][]string{schemaV1, schemaV2, schemaV3}

// migrate brings the file to schemaVersion, one step at a time; a file of
// a newer version is refused.
func migrate(ctx context.Context, db *sql.DB) error {
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT MAX(version) FROM knowledge_index_schema").Scan(&v); err != nil {
		v = sql.NullInt64{} // no table yet: a new file
	}
	if v.Int64 > schemaVersion {
		return fmt.Errorf("schema version %d is newer than this build's %d", v.Int64, schemaVersion)
	}
	if v.Int64 == schemaVersion {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, step := range schemaSteps[v.Int64:] {
		for _, stmt := range step {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("create schema: %w", err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO knowledge_index_schema (version) VALUES (?)", schemaVersion); err != nil {
		return err
	}
	return tx.Commit()
}
