package mysql

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestCacheFollowsOtherProcesses: two indexes on one database stand for
// two Pergola processes; each write of one is seen by the other's next
// search, although the other holds the base's vectors in its cache.
func TestCacheFollowsOtherProcesses(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.MySQL(t)
	a, b := open(t, dsn), open(t, dsn)
	scope := knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7}}
	chunk := func(id int64, vec []float32) knowledge.Chunk {
		return knowledge.Chunk{ID: id, WorkspaceID: 1, KnowledgeID: 7, DocumentID: 70, Text: "shared", Vector: vec}
	}
	nearest := func(want int64) {
		t.Helper()
		hits, err := a.SearchVector(ctx, scope, []float32{1, 0}, 1)
		switch {
		case err != nil:
			t.Fatalf("SearchVector: %v", err)
		case want == 0 && len(hits) != 0:
			t.Fatalf("found %+v after the other process deleted everything", hits)
		case want != 0 && (len(hits) != 1 || hits[0].Chunk.ID != want):
			t.Fatalf("nearest = %+v, want chunk %d", hits, want)
		}
	}
	if err := b.PutChunks(ctx, []knowledge.Chunk{chunk(1, []float32{1, 1})}); err != nil {
		t.Fatal(err)
	}
	nearest(1)
	if a.CachedBases() != 1 {
		t.Fatalf("%d bases cached after a search, want 1", a.CachedBases())
	}
	if err := b.PutChunks(ctx, []knowledge.Chunk{chunk(2, []float32{1, 0.1})}); err != nil {
		t.Fatal(err)
	}
	nearest(2)
	if err := b.PutChunks(ctx, []knowledge.Chunk{chunk(1, []float32{1, 0})}); err != nil {
		t.Fatal(err)
	}
	nearest(1)
	if err := b.DeleteChunks(ctx, 1, 7, []int64{1}); err != nil {
		t.Fatal(err)
	}
	nearest(2)
	if err := b.DeleteBase(ctx, 1, 7); err != nil {
		t.Fatal(err)
	}
	nearest(0)
}

// TestProcessesStartingTogetherShareTheSchema: indexes opened at once on a
// fresh database (processes starting together) all open; before the
// schema lock, two of them could deadlock on the version row and one
// process failed to start.
func TestProcessesStartingTogetherShareTheSchema(t *testing.T) {
	dsn := testenv.MySQL(t)
	errs := make(chan error, 6)
	for range cap(errs) {
		go func() {
			ix, err := Open(context.Background(), dsn)
			if err == nil {
				err = ix.Close()
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatalf("an index opened with others at once: %v", err)
		}
	}
}
