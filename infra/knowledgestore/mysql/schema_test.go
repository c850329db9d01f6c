package mysql

import (
	"context"
	"database/sql"
	"testing"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestSchema1DatabaseLosesItsTermTable: a database of schema version 1
// (with the term table no search reads any more) opens at version 2
// without the term table and the chunk length index, its chunks still
// found by text; opening it again changes nothing.
func TestSchema1DatabaseLosesItsTermTable(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.MySQL(t)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := append(append([]string{}, schemaV1...), `INSERT INTO knowledge_index_schema (version) VALUES (1)`,
		`INSERT INTO knowledge_chunks (id, workspace_id, knowledge_id, document_id, pos, body, dims, term_count)
		VALUES (1, 1, 7, 70, 0, 'refund policy', 0, 2)`,
		`INSERT INTO knowledge_chunk_terms (chunk_id, workspace_id, knowledge_id, term, tf, doc_len) VALUES (1, 1, 7, 'refund', 1, 2)`,
		`INSERT INTO knowledge_index_revisions (knowledge_id, workspace_id, revision) VALUES (7, 1, 1)`)
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		ix := open(t, dsn)
		hits, err := ix.SearchText(ctx, knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7}}, "refund", 5)
		if err != nil || len(hits) != 1 || hits[0].Chunk.ID != 1 {
			t.Fatalf("text search after the upgrade: %+v, %v; want chunk 1", hits, err)
		}
	}
	var version, tables, indexes int
	if err := db.QueryRowContext(ctx, "SELECT MAX(version) FROM knowledge_index_schema").Scan(&version); err != nil || version != 2 {
		t.Fatalf("schema version %d (%v), want 2", version, err)
	}
	err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.tables
		WHERE table_schema = DATABASE() AND table_name = 'knowledge_chunk_terms'`).Scan(&tables)
	if err != nil || tables != 0 {
		t.Fatalf("term table still there (%d, %v)", tables, err)
	}
	err = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.statistics
		WHERE table_schema = DATABASE() AND table_name = 'knowledge_chunks' AND index_name = 'knowledge_chunks_len'`).Scan(&indexes)
	if err != nil || indexes != 0 {
		t.Fatalf("chunk length index still there (%d, %v)", indexes, err)
	}
}
