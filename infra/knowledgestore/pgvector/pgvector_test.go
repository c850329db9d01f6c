package pgvector

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore/indextest"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// testDSN returns a DSN whose search_path is a fresh schema (named with
// the test run's id), dropped when the test ends. Without
// PERGOLA_TEST_PGVECTOR_DSN (scripts/pglite.sh sets it) the test is
// skipped, or fails under CI=true.
func testDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv("PERGOLA_TEST_PGVECTOR_DSN")
	if base == "" {
		if testenv.InCI() {
			t.Fatal("PERGOLA_TEST_PGVECTOR_DSN is required under CI=true (scripts/test.sh starts PGlite through scripts/pglite.sh)")
		}
		t.Skip("PERGOLA_TEST_PGVECTOR_DSN unset, skipping (run scripts/pglite.sh start)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to PERGOLA_TEST_PGVECTOR_DSN: %v", err)
	}
	schema := testenv.Name(t)
	for _, q := range []string{"CREATE EXTENSION IF NOT EXISTS vector SCHEMA public", "CREATE SCHEMA " + schema} {
		if _, err := conn.Exec(ctx, q); err != nil {
			_ = conn.Close(ctx)
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = conn.Close(ctx)
	t.Cleanup(func() { dropSchema(t, base, schema) })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("PERGOLA_TEST_PGVECTOR_DSN must be a URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

func dropSchema(t testing.TB, base, schema string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Errorf("drop schema %s: %v (it is left behind)", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
		t.Errorf("drop schema %s: %v (it is left behind)", schema, err)
	}
}

func open(t testing.TB, dsn string) *Index {
	t.Helper()
	ix, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

func TestContract(t *testing.T) {
	indextest.Run(t, func(t *testing.T) knowledge.Index { return open(t, testDSN(t)) })
}
