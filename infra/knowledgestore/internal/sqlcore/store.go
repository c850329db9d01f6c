// Package sqlcore is the knowledge.Index the sqlite and mysql engines
// share: chunk rows with their vectors as float32 BLOBs, a revision per
// knowledge base bumped in every write's transaction, and searches over a
// per-base in-process cache validated against those revisions: exact (or,
// for large bases, HNSW) vector search and BM25 on an inverted index of
// the chunks' terms, built from the chunk rows when a base is loaded (the
// engines keep no full-text table of their own since schema versions 3 of
// SQLite and 2 of MySQL).
//
// Tables (created by the engines):
//
//	knowledge_chunks(id PK, workspace_id, knowledge_id, document_id, pos,
//	    body, headings JSON, row_data JSON, dims, vector BLOB, term_count)
//	    (term_count is no longer read; new rows hold 0)
//	knowledge_index_revisions(knowledge_id, workspace_id, revision) PK (knowledge_id, workspace_id)
package sqlcore

import (
	"database/sql"
	"time"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore"
)

// Config is what differs between the engines.
type Config struct {
	// BumpSQL inserts the revision row of (knowledge_id, workspace_id) =
	// (?, ?) at 1 or increments it.
	BumpSQL string
	// IsDuplicate reports a primary-key violation.
	IsDuplicate func(error) bool
	// ANN says from which base size vector search uses HNSW.
	ANN knowledgestore.ANNConfig
	// CacheBytes bounds the vectors kept in memory (0: the default).
	CacheBytes int64
	// WarmAfter is how long writes to a base must pause before it is
	// loaded again in the background (0: never, the first search loads).
	WarmAfter time.Duration
	// WriteTx is the options of write transactions (nil: the driver's).
	WriteTx *sql.TxOptions
	// Retryable reports an error after which a write transaction is run
	// again from the start (a deadlock victim); nil: none.
	Retryable func(error) bool
}

// Store implements knowledge.Index on a database/sql database.
type Store struct {
	db    *sql.DB
	cfg   Config
	cache *knowledgestore.VectorCache
	warm  warmer
	stmts stmts
}

// New returns a Store on db, whose tables the engine has created.
func New(db *sql.DB, cfg Config) *Store {
	return &Store{db: db, cfg: cfg, cache: knowledgestore.NewVectorCache(cfg.ANN, cfg.CacheBytes)}
}

// Close drops the cached vectors and stops graph builds; the engine
// closes the database.
func (s *Store) Close() {
	s.warm.stop()
	s.cache.Close()
	s.stmts.close()
}

// CachedBases returns how many knowledge bases' vectors are in memory.
func (s *Store) CachedBases() int { return s.cache.Len() }

var _ knowledge.Index = (*Store)(nil)
