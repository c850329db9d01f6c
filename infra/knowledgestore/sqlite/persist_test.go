package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// TestReopenKeepsEverything: chunks, vectors and their revisions live
// in the file; a restarted process searches them as before.
func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "knowledge.db")
	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	chunks := []knowledge.Chunk{
		{ID: 1, WorkspaceID: 1, KnowledgeID: 7, DocumentID: 70, Text: "花园机器人的秘密代号是青蛙", Vector: []float32{1, 0, 0}},
		{ID: 2, WorkspaceID: 1, KnowledgeID: 7, DocumentID: 70, Position: 1, Text: "refund policy", Vector: []float32{0, 1, 0}},
	}
	if err := ix.PutChunks(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer ix.Close()
	scope := knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7}}
	hits, err := ix.SearchVector(ctx, scope, []float32{0.1, 1, 0}, 1)
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != 2 {
		t.Fatalf("SearchVector after reopen = %+v, %v", hits, err)
	}
	hits, err = ix.SearchText(ctx, scope, "花园", 5)
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != 1 {
		t.Fatalf("SearchText after reopen = %+v, %v", hits, err)
	}
	got, err := ix.GetChunk(ctx, 1, 7, 1)
	if err != nil || got.Text != chunks[0].Text || len(got.Vector) != 3 {
		t.Fatalf("GetChunk after reopen = %+v, %v", got, err)
	}
}
