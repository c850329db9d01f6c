// Package mysql is the knowledge.Index in the main MySQL 8 / MariaDB
// database, for deployments where several Pergola processes share it.
// Vectors are float32 BLOBs searched exactly (HNSW above the threshold)
// from a per-base cache in each process; a revision row per knowledge base,
// bumped in every write's transaction and read with one indexed query per
// search, tells each process when its cache is stale. Full text is BM25
// on the same cache's inverted index of pre-cut terms (lower-cased words,
// CJK characters and character pairs), because MariaDB's FULLTEXT does not
// split Chinese.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/infra/knowledgestore"
	"github.com/pergola-ai/pergola/infra/knowledgestore/internal/sqlcore"
)

// DefaultANNThreshold is the base size from which vector search goes
// through the in-process HNSW graph (the sqlite package says why 2,000).
const DefaultANNThreshold = 2000

// Index is the MySQL/MariaDB knowledge.Index.
type Index struct {
	*sqlcore.Store
	db *sql.DB
}

// Open connects to the database dsn names (a go-sql-driver DSN, as
// PERGOLA_DB_DSN) and creates the index's tables if missing.
func Open(ctx context.Context, dsn string) (*Index, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("knowledge index: parse MySQL DSN: %w", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("knowledge index: the MySQL DSN names no database")
	}
	cfg.Collation = "utf8mb4_unicode_ci"
	cfg.MultiStatements = false
	// A query with arguments is one round trip, not a prepare, an
	// execute and a close: a search's reads (revisions, hits) each cost
	// that much less. Safe with utf8mb4, which the collation sets.
	cfg.InterpolateParams = true
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("knowledge index: MySQL DSN: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(5)
	db.SetConnMaxLifetime(30 * time.Minute)
	if err := migrate(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("knowledge index: %w", err)
	}
	store := sqlcore.New(db, sqlcore.Config{
		BumpSQL: `INSERT INTO knowledge_index_revisions (knowledge_id, workspace_id, revision) VALUES (?, ?, 1)
			ON DUPLICATE KEY UPDATE revision = revision + 1`,
		IsDuplicate: isDuplicate,
		ANN:         knowledgestore.ANNConfig{Threshold: DefaultANNThreshold},
		WarmAfter:   sqlcore.DefaultWarmAfter,
	})
	return &Index{Store: store, db: db}, nil
}

// Close stops background work and closes the connection pool.
func (ix *Index) Close() error {
	ix.Store.Close()
	return ix.db.Close()
}

// isDeadlock reports a deadlock victim (1213) or a lock wait timeout
// (1205); both roll the transaction back.
func isDeadlock(err error) bool {
	var e *gomysql.MySQLError
	return errors.As(err, &e) && (e.Number == 1213 || e.Number == 1205)
}

func isDuplicate(err error) bool {
	var e *gomysql.MySQLError
	return errors.As(err, &e) && e.Number == 1062
}
