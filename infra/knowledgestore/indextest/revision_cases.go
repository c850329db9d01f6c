package indextest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// revisions reads the revisions of knowledge 7 and 8 of workspace 1.
func revisions(t *testing.T, ix knowledge.Index) map[int64]int64 {
	t.Helper()
	revs, err := ix.Revisions(ctx, 1, []int64{7, 8, 9})
	if err != nil {
		t.Fatalf("Revisions: %v", err)
	}
	return revs
}

// grew asserts that knowledge 7's revision grew past before's (and 8's
// did not change) after what.
func grew(t *testing.T, ix knowledge.Index, before map[int64]int64, what string) map[int64]int64 {
	t.Helper()
	after := revisions(t, ix)
	if after[7] <= before[7] || after[8] != before[8] {
		t.Fatalf("after %s: revisions %v, want knowledge 7's past %v and 8's unchanged", what, after, before)
	}
	return after
}

// testRevisions: a base's revision grows with every write of its chunks
// and every Touch, and only its own; a base never written has none.
func testRevisions(t *testing.T, ix knowledge.Index) {
	if revs := revisions(t, ix); len(revs) != 0 {
		t.Fatalf("revisions of bases never written: %v, want none", revs)
	}
	deleteCorpus(t, ix)
	revs := revisions(t, ix)
	if revs[7] <= 0 || revs[8] <= 0 || len(revs) != 2 {
		t.Fatalf("revisions after a put: %v, want knowledge 7 and 8 only, positive", revs)
	}
	if other, err := ix.Revisions(ctx, 2, []int64{7, 8}); err != nil || len(other) != 0 {
		t.Fatalf("workspace 2 read revisions %v (%v) of workspace 1's bases", other, err)
	}
	before := remainingText(t, ix)
	mustDo(t, "Touch", ix.Touch(ctx, 1, 7))
	revs = grew(t, ix, revs, "Touch")
	if after := remainingText(t, ix); !cmp.Equal(after, before) {
		t.Fatalf("Touch changed the search: %v, want %v", after, before)
	}
	put(t, ix, chunk(5, 1, 7, 71, 1, "orchard five", []float32{1, 0.4}))
	revs = grew(t, ix, revs, "PutChunks")
	mustDo(t, "DeleteChunks", ix.DeleteChunks(ctx, 1, 7, []int64{5}))
	revs = grew(t, ix, revs, "DeleteChunks")
	mustDo(t, "DeleteDocument", ix.DeleteDocument(ctx, 1, 7, 71))
	revs = grew(t, ix, revs, "DeleteDocument")
	mustDo(t, "DeleteBase", ix.DeleteBase(ctx, 1, 7))
	grew(t, ix, revs, "DeleteBase")
	mustDo(t, "Touch", ix.Touch(ctx, 1, 9))
	if revs := revisions(t, ix); revs[9] <= 0 {
		t.Fatalf("Touch of a base never written: revisions %v, want knowledge 9's", revs)
	}
}

// testScopeRevisions: a search given the revisions it would read answers
// the same, and revisions of bases outside the scope open none of them.
func testScopeRevisions(t *testing.T, ix knowledge.Index) {
	deleteCorpus(t, ix)
	revs := revisions(t, ix)
	s := knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7}, Revisions: revs}
	if got := sorted(textIDs(t, ix, s, "orchard", 10)); !cmp.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("text search with revisions: %v, want [1 2 3]", got)
	}
	if got := sorted(vectorIDs(t, ix, s, []float32{1, 0}, 10)); !cmp.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("vector search with revisions: %v, want [1 2 3]", got)
	}
	mustDo(t, "Touch", ix.Touch(ctx, 1, 7)) // the scope's revisions are now stale: still the same answer
	if got := sorted(textIDs(t, ix, s, "orchard", 10)); !cmp.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("text search with revisions older than a Touch: %v, want [1 2 3]", got)
	}
}

// remainingText is what a text search of workspace 1 finds, sorted.
func remainingText(t *testing.T, ix knowledge.Index) []int64 {
	t.Helper()
	return sorted(textIDs(t, ix, scope178, "orchard", 10))
}
