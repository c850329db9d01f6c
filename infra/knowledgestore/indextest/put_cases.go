package indextest

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

var scope17 = knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7}}

func testReplace(t *testing.T, ix knowledge.Index) {
	put(t, ix, chunk(1, 1, 7, 70, 0, "alpha apple", []float32{1, 0, 0}), chunk(2, 1, 7, 70, 1, "other", []float32{0, 0, 1}))
	put(t, ix, chunk(1, 1, 7, 71, 0, "beta banana", []float32{0, 1, 0}))
	got, err := ix.GetChunk(ctx, 1, 7, 1)
	if err != nil || got.Text != "beta banana" || got.DocumentID != 71 {
		t.Fatalf("GetChunk after replace = %+v, %v", got, err)
	}
	if ids := textIDs(t, ix, scope17, "alpha", 5); len(ids) != 0 {
		t.Fatalf("the replaced text still matches: %v", ids)
	}
	if ids := textIDs(t, ix, scope17, "banana", 5); !cmp.Equal(ids, []int64{1}) {
		t.Fatalf("the new text: %v", ids)
	}
	hits, _ := ix.SearchVector(ctx, scope17, []float32{0, 1, 0}, 1)
	if len(hits) != 1 || hits[0].Chunk.ID != 1 || math.Abs(hits[0].Score-1) > 1e-4 {
		t.Fatalf("the new vector: %+v", hits)
	}
	if _, total, _ := ix.ListChunks(ctx, 1, 7, 70, identity.Page{Number: 1, Size: 10}); total != 1 {
		t.Fatalf("the old document still counts %d chunks, want 1", total)
	}
}

func testAllOrNone(t *testing.T, ix knowledge.Index) {
	put(t, ix, chunk(1, 1, 7, 70, 0, "original words", []float32{1, 0, 0}))
	batches := map[string][]knowledge.Chunk{
		"lengths differ in the batch": {
			chunk(1, 1, 7, 70, 0, "replacement words", []float32{0, 1, 0}),
			chunk(2, 1, 7, 70, 1, "newcomer words", []float32{1, 1, 0}),
			chunk(3, 1, 7, 70, 2, "broken words", []float32{1, 1, 0, 1}),
		},
		"length differs from the base": {
			chunk(2, 1, 7, 70, 1, "newcomer words", []float32{1, 1, 0, 0}),
		},
		"bad id late in the batch": {
			chunk(2, 1, 7, 70, 1, "newcomer words", []float32{1, 1, 0}),
			chunk(0, 1, 7, 70, 2, "no id", []float32{1, 1, 0}),
		},
	}
	for name, batch := range batches {
		checkFailedBatch(t, ix, name, batch, errs.ErrInvalid)
	}
	// A chunk id another workspace holds fails the write half way, after
	// the first chunk went in: the transaction must take it back.
	put(t, ix, chunk(5, 2, 9, 90, 0, "someone else's", []float32{1, 0, 0}))
	checkFailedBatch(t, ix, "id of another workspace", []knowledge.Chunk{
		chunk(2, 1, 7, 70, 1, "newcomer words", []float32{1, 1, 0}),
		chunk(5, 1, 7, 70, 2, "broken words", []float32{1, 1, 0}),
	}, errs.ErrConflict)
	if got, err := ix.GetChunk(ctx, 2, 9, 5); err != nil || got.Text != "someone else's" {
		t.Fatalf("the other workspace's chunk = %+v, %v", got, err)
	}
}

func checkFailedBatch(t *testing.T, ix knowledge.Index, name string, batch []knowledge.Chunk, want error) {
	t.Helper()
	{
		err := ix.PutChunks(ctx, batch)
		if !errors.Is(err, want) {
			t.Fatalf("%s: PutChunks = %v, want %v", name, err, want)
		}
		mustNotFind(t, ix, 1, 7, 2)
		mustNotFind(t, ix, 1, 7, 3)
		if got, _ := ix.GetChunk(ctx, 1, 7, 1); got == nil || got.Text != "original words" {
			t.Fatalf("%s: chunk 1 = %+v, want it untouched", name, got)
		}
		if ids := textIDs(t, ix, scope17, "newcomer replacement broken", 5); len(ids) != 0 {
			t.Fatalf("%s: text of the failed batch is findable: %v", name, ids)
		}
		if ids := vectorIDs(t, ix, scope17, []float32{1, 1, 0}, 5); !cmp.Equal(ids, []int64{1}) {
			t.Fatalf("%s: vectors after the failed batch: %v", name, ids)
		}
	}
}

func testBadInput(t *testing.T, ix knowledge.Index) {
	nan := float32(math.NaN())
	bad := []knowledge.Chunk{
		chunk(1, 0, 7, 70, 0, "no workspace", nil),
		chunk(1, 1, 0, 70, 0, "no knowledge", nil),
		chunk(1, 1, 7, 0, 0, "no document", nil),
		chunk(1, 1, 7, 70, 0, "not a number", []float32{nan, 1}),
	}
	for _, c := range bad {
		if err := ix.PutChunks(ctx, []knowledge.Chunk{c}); !errors.Is(err, errs.ErrInvalid) {
			t.Fatalf("PutChunks(%q) = %v, want ErrInvalid", c.Text, err)
		}
	}
	twice := []knowledge.Chunk{chunk(1, 1, 7, 70, 0, "a", nil), chunk(1, 1, 7, 70, 1, "b", nil)}
	if err := ix.PutChunks(ctx, twice); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("PutChunks with an id twice = %v, want ErrInvalid", err)
	}
	if err := ix.PutChunks(ctx, nil); err != nil {
		t.Fatalf("PutChunks(nil) = %v, want nothing to do", err)
	}
}
