package indextest

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// testScope: the same text and vector in workspace 2 and in knowledge 9
// never come back for the scope {1, [7]}.
func testScope(t *testing.T, ix knowledge.Index) {
	vec := []float32{0.3, 0.4, 0.5}
	put(t, ix,
		chunk(1, 1, 7, 70, 0, "secret greenhouse 温室", vec),
		chunk(2, 2, 7, 70, 0, "secret greenhouse 温室", vec),
		chunk(3, 1, 9, 90, 0, "secret greenhouse 温室", vec),
		chunk(4, 2, 9, 90, 0, "secret greenhouse 温室", vec),
	)
	for _, q := range []string{"secret", "greenhouse", "温室"} {
		if ids := textIDs(t, ix, scope17, q, 10); !cmp.Equal(ids, []int64{1}) {
			t.Fatalf("SearchText(%q) in {1,[7]} = %v, want [1]", q, ids)
		}
	}
	if ids := vectorIDs(t, ix, scope17, vec, 10); !cmp.Equal(ids, []int64{1}) {
		t.Fatalf("SearchVector in {1,[7]} = %v, want [1]", ids)
	}
	s29 := knowledge.Scope{WorkspaceID: 2, KnowledgeIDs: []int64{9}}
	if ids := textIDs(t, ix, s29, "secret", 10); !cmp.Equal(ids, []int64{4}) {
		t.Fatalf("SearchText in {2,[9]} = %v, want [4]", ids)
	}
	mustNotFind(t, ix, 2, 7, 1)
	mustNotFind(t, ix, 1, 9, 1)
	if chunks, total, _ := ix.ListChunks(ctx, 2, 7, 70, identity.Page{Number: 1, Size: 10}); total != 1 || chunks[0].ID != 2 {
		t.Fatalf("ListChunks in workspace 2 = %v (total %d), want only chunk 2", chunks, total)
	}
}

func testList(t *testing.T, ix knowledge.Index) {
	var batch []knowledge.Chunk
	for _, pos := range []int{4, 0, 6, 2, 1, 5, 3} {
		batch = append(batch, chunk(int64(10+pos), 1, 7, 70, pos, "piece", []float32{1, float32(pos)}))
	}
	batch = append(batch, chunk(99, 1, 7, 71, 0, "another document", []float32{1, 1}))
	put(t, ix, batch...)
	pages := map[int][]int64{1: {10, 11, 12}, 2: {13, 14, 15}, 3: {16}, 4: {}}
	for n, want := range pages {
		chunks, total, err := ix.ListChunks(ctx, 1, 7, 70, identity.Page{Number: n, Size: 3})
		if err != nil || total != 7 {
			t.Fatalf("page %d: total %d, %v; want 7", n, total, err)
		}
		got := []int64{}
		for i, c := range chunks {
			got = append(got, c.ID)
			if c.Vector != nil || c.Position != (n-1)*3+i || c.Text != "piece" {
				t.Fatalf("page %d: chunk %+v, want position %d, text and no vector", n, c, (n-1)*3+i)
			}
		}
		if !cmp.Equal(got, want) {
			t.Fatalf("page %d = %v, want %v", n, got, want)
		}
	}
}

func testGet(t *testing.T, ix knowledge.Index) {
	want := knowledge.Chunk{ID: 5, WorkspaceID: 1, KnowledgeID: 7, DocumentID: 70, Position: 3,
		Text: "name: Ada\ncity: 伦敦", Headings: []string{"People", "Engineers"},
		Row: map[string]string{"name": "Ada", "city": "伦敦"}, Vector: []float32{0.25, -1.5, 3}}
	put(t, ix, want)
	got, err := ix.GetChunk(ctx, 1, 7, 5)
	if err != nil {
		t.Fatalf("GetChunk: %v", err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("GetChunk = %+v\nwant %+v", *got, want)
	}
	mustNotFind(t, ix, 1, 7, 6)
	put(t, ix, chunk(6, 1, 7, 70, 4, "plain", nil))
	if got, err := ix.GetChunk(ctx, 1, 7, 6); err != nil || got.Vector != nil || got.Headings != nil || got.Row != nil {
		t.Fatalf("a chunk without vector, headings or row = %+v, %v", got, err)
	}
}

// testSkipDocuments: chunks of the scope's SkipDocuments (documents not
// ready) never come back, even when they are the best matches and
// outnumber topK; the other documents' best chunks fill the answer.
func testSkipDocuments(t *testing.T, ix knowledge.Index) {
	near, far := []float32{1, 0, 0}, []float32{0.6, 0.8, 0}
	var batch []knowledge.Chunk
	for i := range 6 { // document 71, being indexed: the best matches
		v := []float32{1, 0.01 * float32(i), 0}
		batch = append(batch, chunk(int64(1+i), 1, 7, 71, i, "orchard pruning", v))
	}
	batch = append(batch,
		chunk(10, 1, 7, 70, 0, "orchard pruning season", far),
		chunk(11, 1, 7, 70, 1, "pruning", []float32{0, 0.8, 0.6}),
		chunk(12, 1, 8, 80, 0, "orchard", []float32{0.5, 0, 0.5}))
	put(t, ix, batch...)
	s := knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7, 8}, SkipDocuments: []int64{71, 999}}
	if ids := vectorIDs(t, ix, s, near, 3); !cmp.Equal(ids, []int64{12, 10, 11}) {
		t.Fatalf("SearchVector skipping document 71 = %v, want [12 10 11]", ids)
	}
	if ids := textIDs(t, ix, s, "orchard pruning", 3); len(ids) != 3 || ids[0] != 10 || contains(ids, 1) {
		t.Fatalf("SearchText skipping document 71 = %v, want chunk 10 first and none of document 71", ids)
	}
	all := knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7, 8}}
	if ids := vectorIDs(t, ix, all, near, 3); !cmp.Equal(ids, []int64{1, 2, 3}) {
		t.Fatalf("SearchVector without skipping = %v, want [1 2 3]", ids)
	}
	if ids := textIDs(t, ix, all, "orchard pruning", 3); !cmp.Equal(ids, []int64{1, 2, 3}) {
		t.Fatalf("SearchText without skipping = %v, want [1 2 3]", ids)
	}
}
