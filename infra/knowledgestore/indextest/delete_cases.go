package indextest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// deleteCorpus: documents 70 and 71 of knowledge 7, document 80 of
// knowledge 8, all of workspace 1, every chunk saying "orchard".
func deleteCorpus(t *testing.T, ix knowledge.Index) {
	put(t, ix,
		chunk(1, 1, 7, 70, 0, "orchard one", []float32{1, 0}),
		chunk(2, 1, 7, 70, 1, "orchard two", []float32{1, 0.1}),
		chunk(3, 1, 7, 71, 0, "orchard three", []float32{1, 0.2}),
		chunk(4, 1, 8, 80, 0, "orchard four", []float32{1, 0.3}),
	)
}

var scope178 = knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7, 8}}

// remaining asserts that exactly ids are findable by text, by vector and
// in their listings, and that the others are gone from GetChunk too.
func remaining(t *testing.T, ix knowledge.Index, ids ...int64) {
	t.Helper()
	byText := sorted(textIDs(t, ix, scope178, "orchard", 10))
	byVector := sorted(vectorIDs(t, ix, scope178, []float32{1, 0}, 10))
	if !cmp.Equal(byText, ids) || !cmp.Equal(byVector, ids) {
		t.Fatalf("after delete: by text %v, by vector %v, want %v", byText, byVector, ids)
	}
	listed := append(list(t, ix, 7, 70), append(list(t, ix, 7, 71), list(t, ix, 8, 80)...)...)
	if !cmp.Equal(sorted(listed), ids) {
		t.Fatalf("after delete: listed %v, want %v", sorted(listed), ids)
	}
	owner := map[int64]int64{1: 7, 2: 7, 3: 7, 4: 8}
	for id, kid := range owner {
		if !contains(ids, id) {
			mustNotFind(t, ix, 1, kid, id)
		}
	}
}

func list(t *testing.T, ix knowledge.Index, kid, doc int64) []int64 {
	t.Helper()
	chunks, total, err := ix.ListChunks(ctx, 1, kid, doc, identity.Page{Number: 1, Size: 50})
	if err != nil {
		t.Fatalf("ListChunks: %v", err)
	}
	if int(total) != len(chunks) {
		t.Fatalf("ListChunks: total %d for %d chunks", total, len(chunks))
	}
	ids := []int64{}
	for _, c := range chunks {
		ids = append(ids, c.ID)
	}
	return ids
}

func sorted(ids []int64) []int64 {
	out := append([]int64{}, ids...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func mustDo(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func testDeleteDocument(t *testing.T, ix knowledge.Index) {
	deleteCorpus(t, ix)
	mustDo(t, "DeleteDocument of another workspace", ix.DeleteDocument(ctx, 2, 7, 70))
	remaining(t, ix, 1, 2, 3, 4)
	mustDo(t, "DeleteDocument", ix.DeleteDocument(ctx, 1, 7, 70))
	remaining(t, ix, 3, 4)
	mustDo(t, "DeleteDocument again", ix.DeleteDocument(ctx, 1, 7, 70))
}

func testDeleteChunks(t *testing.T, ix knowledge.Index) {
	deleteCorpus(t, ix)
	mustDo(t, "DeleteChunks of another base", ix.DeleteChunks(ctx, 1, 8, []int64{1, 2}))
	mustDo(t, "DeleteChunks of another workspace", ix.DeleteChunks(ctx, 2, 7, []int64{1, 2}))
	remaining(t, ix, 1, 2, 3, 4)
	mustDo(t, "DeleteChunks", ix.DeleteChunks(ctx, 1, 7, []int64{2, 3, 99}))
	remaining(t, ix, 1, 4)
	mustDo(t, "DeleteChunks of none", ix.DeleteChunks(ctx, 1, 7, nil))
}

func testDeleteBase(t *testing.T, ix knowledge.Index) {
	deleteCorpus(t, ix)
	mustDo(t, "DeleteBase of another workspace", ix.DeleteBase(ctx, 2, 7))
	remaining(t, ix, 1, 2, 3, 4)
	mustDo(t, "DeleteBase", ix.DeleteBase(ctx, 1, 7))
	remaining(t, ix, 4)
	// The emptied base takes vectors of another length afterwards.
	put(t, ix, chunk(5, 1, 7, 72, 0, "orchard five", []float32{1, 0, 0}))
	if ids := vectorIDs(t, ix, scope178, []float32{1, 0, 0}, 5); !cmp.Equal(ids, []int64{5}) {
		t.Fatalf("after re-embedding the base: %v", ids)
	}
}
