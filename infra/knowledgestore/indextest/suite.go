// Package indextest is the contract suite of knowledge.Index: every
// engine runs it against a real database and must give the same answers.
package indextest

import (
	"context"
	"errors"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Run runs the contract suite; open returns a fresh, empty index for each
// case.
func Run(t *testing.T, open func(t *testing.T) knowledge.Index) {
	cases := []struct {
		name string
		fn   func(t *testing.T, ix knowledge.Index)
	}{
		{"VectorSearchIsExactCosine", testVectorExact},
		{"VectorDimensionsPerBase", testMixedDims},
		{"PutReplacesByID", testReplace},
		{"PutIsAllOrNone", testAllOrNone},
		{"PutRejectsBadInput", testBadInput},
		{"DeleteDocument", testDeleteDocument},
		{"DeleteChunks", testDeleteChunks},
		{"DeleteBase", testDeleteBase},
		{"ScopeNeverLeaks", testScope},
		{"SkipDocuments", testSkipDocuments},
		{"ListChunksPages", testList},
		{"GetChunk", testGet},
		{"TextEnglish", testTextEnglish},
		{"TextChinese", testTextChinese},
		{"TextRanking", testTextRanking},
		{"TextCommonWords", testTextCommonWords},
		{"TopK", testTopK},
		{"EmptyQueries", testEmpty},
		{"ConcurrentWriters", testConcurrentWriters},
		{"Revisions", testRevisions},
		{"ScopeRevisions", testScopeRevisions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

var ctx = context.Background()

// put stores chunks or fails the test.
func put(t *testing.T, ix knowledge.Index, chunks ...knowledge.Chunk) {
	t.Helper()
	if err := ix.PutChunks(ctx, chunks); err != nil {
		t.Fatalf("PutChunks: %v", err)
	}
}

func mustNotFind(t *testing.T, ix knowledge.Index, ws, kid, id int64) {
	t.Helper()
	_, err := ix.GetChunk(ctx, ws, kid, id)
	if !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("GetChunk(%d, %d, %d) = %v, want ErrNotFound", ws, kid, id, err)
	}
}

func textIDs(t *testing.T, ix knowledge.Index, s knowledge.Scope, q string, k int) []int64 {
	t.Helper()
	hits, err := ix.SearchText(ctx, s, q, k)
	if err != nil {
		t.Fatalf("SearchText(%q): %v", q, err)
	}
	checkHits(t, hits, s, k)
	return hitIDs(hits)
}

func vectorIDs(t *testing.T, ix knowledge.Index, s knowledge.Scope, v []float32, k int) []int64 {
	t.Helper()
	hits, err := ix.SearchVector(ctx, s, v, k)
	if err != nil {
		t.Fatalf("SearchVector: %v", err)
	}
	checkHits(t, hits, s, k)
	return hitIDs(hits)
}

// checkHits asserts what holds for every search: at most k hits, best
// first, all inside the scope.
func checkHits(t *testing.T, hits []knowledge.Hit, s knowledge.Scope, k int) {
	t.Helper()
	if len(hits) > k {
		t.Fatalf("%d hits for topK %d", len(hits), k)
	}
	for i, h := range hits {
		if i > 0 && h.Score > hits[i-1].Score+1e-9 {
			t.Fatalf("hits not best first: %v", scores(hits))
		}
		if h.Chunk.WorkspaceID != s.WorkspaceID || !contains(s.KnowledgeIDs, h.Chunk.KnowledgeID) {
			t.Fatalf("hit %d (workspace %d, knowledge %d) is outside the scope %+v",
				h.Chunk.ID, h.Chunk.WorkspaceID, h.Chunk.KnowledgeID, s)
		}
	}
}

func hitIDs(hits []knowledge.Hit) []int64 {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.Chunk.ID
	}
	return ids
}

func scores(hits []knowledge.Hit) []float64 {
	out := make([]float64, len(hits))
	for i, h := range hits {
		out[i] = h.Score
	}
	return out
}

func contains(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
