package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// TestSchema2FileLosesItsFTSTables: a file written by a build of schema
// version 2 (with the FTS5 index it no longer reads) opens at version 3
// without the FTS5 tables, its chunks still found by text and vector.
func TestSchema2FileLosesItsFTSTables(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "knowledge.db")
	db, err := sql.Open("sqlite", path+params)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append(append([]string{}, schemaV1...), schemaV2...) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.ExecContext(ctx, `INSERT INTO knowledge_index_schema (version) VALUES (2);
		INSERT INTO knowledge_chunks (id, workspace_id, knowledge_id, document_id, pos, body, dims, vector, term_count)
		VALUES (1, 1, 7, 70, 0, 'refund policy', 0, NULL, 2);
		INSERT INTO knowledge_chunks_fts (rowid, terms) VALUES (1, 'refund policy');
		INSERT INTO knowledge_index_revisions (knowledge_id, workspace_id, revision) VALUES (7, 1, 1)`)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("open a version 2 file: %v", err)
	}
	defer ix.Close()
	var version int
	var fts int
	if err := ix.db.QueryRowContext(ctx, "SELECT MAX(version) FROM knowledge_index_schema").Scan(&version); err != nil || version != 3 {
		t.Fatalf("schema version %d (%v), want 3", version, err)
	}
	err = ix.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'knowledge_chunks_fts%'").Scan(&fts)
	if err != nil || fts != 0 {
		t.Fatalf("%d FTS5 tables left (%v), want none", fts, err)
	}
	hits, err := ix.SearchText(ctx, knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7}}, "refund", 5)
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != 1 {
		t.Fatalf("text search after the upgrade: %+v, %v; want chunk 1", hits, err)
	}
}
