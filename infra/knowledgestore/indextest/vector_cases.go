package indextest

import (
	"math"
	"math/rand"
	"testing"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

func testVectorExact(t *testing.T, ix knowledge.Index) {
	corpus := mixedCorpus()
	put(t, ix, corpus[:30]...)
	put(t, ix, corpus[30:]...)
	r := rand.New(rand.NewSource(7))
	scopes := []knowledge.Scope{{WorkspaceID: 1, KnowledgeIDs: []int64{7}}, {WorkspaceID: 1, KnowledgeIDs: []int64{7, 8}}}
	for q := 0; q < 10; q++ {
		vec := randVec(r, 8)
		for _, s := range scopes {
			compareWithBruteForce(t, ix, corpus, s, vec, 5)
		}
	}
	// A query equal to a stored vector finds that chunk first, at 1.
	compareWithBruteForce(t, ix, corpus, scopes[1], corpus[4].Vector, 3)
}

func compareWithBruteForce(t *testing.T, ix knowledge.Index, corpus []knowledge.Chunk, s knowledge.Scope, q []float32, k int) {
	t.Helper()
	hits, err := ix.SearchVector(ctx, s, q, k)
	if err != nil {
		t.Fatalf("SearchVector: %v", err)
	}
	checkHits(t, hits, s, k)
	want := bruteForce(corpus, s, q, k)
	if len(hits) != len(want) {
		t.Fatalf("%d hits, brute force has %d", len(hits), len(want))
	}
	for i, h := range hits {
		if h.Chunk.ID != want[i].id || math.Abs(h.Score-want[i].score) > 1e-4 {
			t.Fatalf("hit %d = chunk %d score %.6f, brute force: chunk %d score %.6f", i, h.Chunk.ID, h.Score, want[i].id, want[i].score)
		}
		if len(h.Chunk.Vector) != 0 && len(h.Chunk.Vector) != len(q) {
			t.Fatalf("hit %d carries a vector of %d dimensions", i, len(h.Chunk.Vector))
		}
	}
}

// testMixedDims: bases embedded by different models live side by side; a
// query is compared with the chunks whose vectors have its dimensions.
func testMixedDims(t *testing.T, ix knowledge.Index) {
	r := rand.New(rand.NewSource(3))
	var corpus []knowledge.Chunk
	for i := 0; i < 12; i++ {
		kid, dims := int64(7), 8
		if i%2 == 1 {
			kid, dims = 8, 4
		}
		corpus = append(corpus, chunk(int64(1+i), 1, kid, kid*10, i, "mixed", randVec(r, dims)))
	}
	put(t, ix, corpus...)
	s := knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7, 8}}
	compareWithBruteForce(t, ix, corpus, s, randVec(r, 4), 4)
	compareWithBruteForce(t, ix, corpus, s, randVec(r, 8), 4)
	if ids := vectorIDs(t, ix, s, randVec(r, 5), 4); len(ids) != 0 {
		t.Fatalf("a 5-dimension query found %v; no base has 5 dimensions", ids)
	}
}
