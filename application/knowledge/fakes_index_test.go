package knowledge_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// memIndex is an in-memory knowledge.Index: exact cosine search, and a
// full-text score counting the query's words (or, for text without
// spaces, its two-character pieces) found in a chunk.
type memIndex struct {
	mu     sync.Mutex
	chunks map[int64]knowledge.Chunk
	revs   map[[2]int64]int64 // by workspace and knowledge base
}

func newMemIndex() *memIndex {
	return &memIndex{chunks: map[int64]knowledge.Chunk{}, revs: map[[2]int64]int64{}}
}

func (x *memIndex) PutChunks(_ context.Context, cs []knowledge.Chunk) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range cs {
		if old, ok := x.chunks[c.ID]; ok {
			x.revs[[2]int64{old.WorkspaceID, old.KnowledgeID}]++
		}
		x.chunks[c.ID] = c
		x.revs[[2]int64{c.WorkspaceID, c.KnowledgeID}]++
	}
	return nil
}

// remove drops the chunks of a base keep refuses and grows its revision.
func (x *memIndex) remove(ws, kb int64, keep func(c knowledge.Chunk) bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.revs[[2]int64{ws, kb}]++
	for id, c := range x.chunks {
		if !keep(c) {
			delete(x.chunks, id)
		}
	}
}

func (x *memIndex) Revisions(_ context.Context, ws int64, kbs []int64) (map[int64]int64, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := map[int64]int64{}
	for _, kb := range kbs {
		if r, ok := x.revs[[2]int64{ws, kb}]; ok {
			out[kb] = r
		}
	}
	return out, nil
}

func (x *memIndex) Touch(_ context.Context, ws, kb int64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.revs[[2]int64{ws, kb}]++
	return nil
}

func (x *memIndex) DeleteDocument(_ context.Context, ws, kb, doc int64) error {
	x.remove(ws, kb, func(c knowledge.Chunk) bool {
		return !(c.WorkspaceID == ws && c.KnowledgeID == kb && c.DocumentID == doc)
	})
	return nil
}

func (x *memIndex) DeleteBase(_ context.Context, ws, kb int64) error {
	x.remove(ws, kb, func(c knowledge.Chunk) bool { return !(c.WorkspaceID == ws && c.KnowledgeID == kb) })
	return nil
}

func (x *memIndex) DeleteChunks(_ context.Context, ws, kb int64, ids []int64) error {
	x.remove(ws, kb, func(c knowledge.Chunk) bool {
		return !(c.WorkspaceID == ws && c.KnowledgeID == kb && slices.Contains(ids, c.ID))
	})
	return nil
}

func (x *memIndex) GetChunk(_ context.Context, ws, kb, id int64) (*knowledge.Chunk, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c, ok := x.chunks[id]
	if !ok || c.WorkspaceID != ws || c.KnowledgeID != kb {
		return nil, errs.NotFound("chunk", fmt.Sprint(id))
	}
	return &c, nil
}

func (x *memIndex) docChunks(ws, kb, doc int64) []knowledge.Chunk {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []knowledge.Chunk
	for _, c := range x.chunks {
		if c.WorkspaceID == ws && c.KnowledgeID == kb && c.DocumentID == doc {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b knowledge.Chunk) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func (x *memIndex) ListChunks(_ context.Context, ws, kb, doc int64, p identity.Page) ([]knowledge.Chunk, int64, error) {
	all := x.docChunks(ws, kb, doc)
	from := min(p.Offset(), len(all))
	to := min(from+p.Size, len(all))
	out := slices.Clone(all[from:to])
	for i := range out {
		out[i].Vector = nil
	}
	return out, int64(len(all)), nil
}

func (x *memIndex) search(s knowledge.Scope, topK int, score func(c knowledge.Chunk) float64) []knowledge.Hit {
	x.mu.Lock()
	defer x.mu.Unlock()
	var hits []knowledge.Hit
	for _, c := range x.chunks {
		if c.WorkspaceID != s.WorkspaceID || !slices.Contains(s.KnowledgeIDs, c.KnowledgeID) || slices.Contains(s.SkipDocuments, c.DocumentID) {
			continue
		}
		if sc := score(c); sc > 0 {
			c.Vector = nil
			hits = append(hits, knowledge.Hit{Chunk: c, Score: sc})
		}
	}
	slices.SortFunc(hits, func(a, b knowledge.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Chunk.ID, b.Chunk.ID))
	})
	return hits[:min(len(hits), topK)]
}

func (x *memIndex) SearchVector(_ context.Context, s knowledge.Scope, v []float32, topK int) ([]knowledge.Hit, error) {
	return x.search(s, topK, func(c knowledge.Chunk) float64 { return cosine(v, c.Vector) }), nil
}

func (x *memIndex) SearchText(_ context.Context, s knowledge.Scope, q string, topK int) ([]knowledge.Hit, error) {
	terms := slices.Compact(slices.Sorted(slices.Values(words(q))))
	return x.search(s, topK, func(c knowledge.Chunk) float64 {
		n := 0.0
		have := words(c.Text)
		for _, w := range terms {
			if slices.Contains(have, w) {
				n++
			}
		}
		return n
	}), nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// words lowercases text into words; a word without spaces of several
// Chinese characters becomes its two-character pieces.
func words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == ' ' || r == '\n' || r == ',' || r == '.' || r == '?' || r == ':' || r == '，' || r == '。' || r == '？'
	}) {
		rs := []rune(w)
		if len(rs) > 2 && rs[0] > 0x2e80 {
			for i := 0; i+1 < len(rs); i++ {
				out = append(out, string(rs[i:i+2]))
			}
			continue
		}
		out = append(out, w)
	}
	return out
}
