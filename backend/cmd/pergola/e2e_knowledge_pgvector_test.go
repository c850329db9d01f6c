package main

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// knowledgeBackends are the backends plus SQLite with the pgvector index
// (PERGOLA_VECTOR_DSN) when PERGOLA_TEST_PGVECTOR_DSN names a PostgreSQL
// with pgvector (scripts/pglite.sh starts one); each such run gets a
// schema of its own, dropped afterwards.
func knowledgeBackends(t *testing.T) []backend {
	out := backends()
	if os.Getenv("PERGOLA_TEST_PGVECTOR_DSN") == "" && !testenv.InCI() {
		return out
	}
	return append(out, backend{"sqlite+pgvector", func(t *testing.T) map[string]string {
		return map[string]string{"PERGOLA_VECTOR_DSN": pgvectorSchema(t)}
	}})
}

// pgvectorSchema returns PERGOLA_TEST_PGVECTOR_DSN with a fresh schema
// first on its search_path.
func pgvectorSchema(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PERGOLA_TEST_PGVECTOR_DSN")
	if base == "" {
		t.Fatal("PERGOLA_TEST_PGVECTOR_DSN is required under CI=true (scripts/pglite.sh start)")
	}
	schema := testenv.Name(t)
	pgExec(t, base, "CREATE EXTENSION IF NOT EXISTS vector SCHEMA public", "CREATE SCHEMA "+schema)
	t.Cleanup(func() { pgExec(t, base, "DROP SCHEMA "+schema+" CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("PERGOLA_TEST_PGVECTOR_DSN must be a URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}

func pgExec(t *testing.T, dsn string, stmts ...string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to PERGOLA_TEST_PGVECTOR_DSN: %v", err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
