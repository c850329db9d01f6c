// Package pgvector is the knowledge.Index on PostgreSQL with the pgvector
// extension, for large knowledge bases. Vectors of any length share one
// `vector` column with a dims column beside it; because HNSW needs a fixed
// length, each length seen gets its own partial expression index
// (USING hnsw ((embedding::vector(D)) vector_cosine_ops) WHERE dims = D),
// and searches use the same cast and predicate so the planner picks it.
// Full text is PostgreSQL's own: a tsvector (parser 'simple') over terms cut
// in Go — words, CJK characters and character pairs — in a GIN index,
// ranked by ts_rank_cd.
//
// Against PGlite, whose connections all share one session, give the DSN
// pool_max_conns=1; nothing here keeps state in a session beyond the
// search_path a DSN asks for (search_path=...), set on every connection.
package pgvector

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Index is the pgvector knowledge.Index.
type Index struct {
	pool *pgxpool.Pool
	// iterative is whether pgvector (0.8+) can continue an HNSW scan
	// until filtered queries have topK rows.
	iterative bool
	// indexed remembers the vector lengths whose HNSW index exists.
	indexed sync.Map
}

var _ knowledge.Index = (*Index)(nil)

// Open connects to the database dsn names (a pgx DSN or URL; pool_max_conns
// and search_path are honoured), creates the vector extension if missing
// and the index's tables.
func Open(ctx context.Context, dsn string) (*Index, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("knowledge index: parse PostgreSQL DSN: %w", err)
	}
	if path := cfg.ConnConfig.RuntimeParams["search_path"]; path != "" {
		// Some servers (PGlite) ignore startup parameters; setting it
		// again on each new connection works everywhere.
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SELECT set_config('search_path', $1, false)", path)
			return err
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("knowledge index: connect: %w", err)
	}
	ix := &Index{pool: pool}
	if err := ix.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("knowledge index: %w", err)
	}
	return ix, nil
}

// Close closes the connection pool.
func (ix *Index) Close() error {
	ix.pool.Close()
	return nil
}

// supportsIterative reports whether extversion is 0.8 or later.
func supportsIterative(extversion string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimSpace(extversion), "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 0 || minor >= 8
}
