// Package sqlite is the embedded knowledge.Index: chunks and float32
// vectors in their own SQLite file (the pure-Go driver, no cgo). Searches read a per-base cache in memory (see sqlcore):
// exact cosine, through an HNSW graph for bases of DefaultANNThreshold
// chunks or more, and BM25 on an inverted index of pre-cut terms (words,
// CJK characters and character pairs), so Chinese matches without spaces.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sqlitedrv "github.com/glebarez/go-sqlite"

	"github.com/pergola-ai/pergola/infra/knowledgestore"
	"github.com/pergola-ai/pergola/infra/knowledgestore/internal/sqlcore"
)

// DefaultANNThreshold is the base size from which vector search goes
// through the HNSW graph. At 10,000 vectors of 768 dimensions exact search
// measured 4.3 ms of CPU per search and the graph 0.6 ms
// (BenchmarkSearchVectorExact and ...ANN, on a busy shared machine); at
// 2,000 exact search is under a millisecond and the graph is built in a
// fraction of a second, in the background as soon as the base is loaded.
const DefaultANNThreshold = 2000

// Index is the SQLite knowledge.Index.
type Index struct {
	*sqlcore.Store
	db *sql.DB
}

// Option changes how Open sets up the index.
type Option func(*options)

type options struct {
	ann        knowledgestore.ANNConfig
	cacheBytes int64
}

// WithCacheBytes bounds the vectors kept in memory for search (default
// knowledgestore.DefaultCacheBytes); the least recently searched bases
// are dropped first.
func WithCacheBytes(n int64) Option { return func(o *options) { o.cacheBytes = n } }

// WithANNThreshold sets the base size from which vector search uses the
// HNSW graph; 0 keeps every search exact.
func WithANNThreshold(n int) Option { return func(o *options) { o.ann.Threshold = n } }

// WithSyncANNBuild builds a base's HNSW graph in the search that first
// needs it, instead of in the background while searches stay exact; for
// tests and benchmarks that must know which path answered.
func WithSyncANNBuild() Option { return func(o *options) { o.ann.Sync = true } }

// params: WAL lets searches run beside the one writer; busy_timeout makes
// a writer wait for the lock instead of failing at once. Every write
// transaction starts with a write, so deferred transactions do not
// deadlock on the lock upgrade.
const params = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"

// Open opens (creating it and its directory if needed) the index file at
// path and creates its tables.
func Open(ctx context.Context, path string, opts ...Option) (*Index, error) {
	o := options{ann: knowledgestore.ANNConfig{Threshold: DefaultANNThreshold}}
	for _, fn := range opts {
		fn(&o)
	}
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("knowledge index: SQLite path %q is empty or holds '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("knowledge index: create directory: %w", err)
	}
	db, err := sql.Open("sqlite", path+params)
	if err != nil {
		return nil, fmt.Errorf("knowledge index: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	if err := migrate(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("knowledge index: %s: %w", path, err)
	}
	store := sqlcore.New(db, sqlcore.Config{
		BumpSQL: `INSERT INTO knowledge_index_revisions (knowledge_id, workspace_id, revision) VALUES (?, ?, 1)
			ON CONFLICT (knowledge_id, workspace_id) DO UPDATE SET revision = revision + 1`,
		IsDuplicate: isDuplicate,
		ANN:         o.ann,
		WarmAfter:   sqlcore.DefaultWarmAfter,
	})
	return &Index{Store: store, db: db}, nil
}

// Close stops background work and closes the file.
func (ix *Index) Close() error {
	ix.Store.Close()
	return ix.db.Close()
}

// isDuplicate reports SQLITE_CONSTRAINT_PRIMARYKEY.
func isDuplicate(err error) bool {
	var e *sqlitedrv.Error
	return errors.As(err, &e) && e.Code() == 1555
}
