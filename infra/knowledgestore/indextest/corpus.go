package indextest

import (
	"math"
	"math/rand"
	"sort"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// chunk builds a chunk of workspace ws, knowledge kid, document doc.
func chunk(id, ws, kid, doc int64, pos int, text string, vec []float32) knowledge.Chunk {
	return knowledge.Chunk{ID: id, WorkspaceID: ws, KnowledgeID: kid, DocumentID: doc,
		Position: pos, Text: text, Vector: vec}
}

// randVec returns a deterministic pseudo-random vector.
func randVec(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// cosine is the brute-force reference the engines are checked against.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

type ref struct {
	id    int64
	score float64
}

// bruteForce ranks the chunks of scope s by cosine to q, best first.
func bruteForce(chunks []knowledge.Chunk, s knowledge.Scope, q []float32, k int) []ref {
	var out []ref
	for _, c := range chunks {
		if c.WorkspaceID != s.WorkspaceID || !contains(s.KnowledgeIDs, c.KnowledgeID) || len(c.Vector) != len(q) {
			continue
		}
		out = append(out, ref{c.ID, cosine(c.Vector, q)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].score > out[j].score })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// mixedCorpus is 60 chunks with 8-dim vectors: knowledge 7 and 8 of
// workspace 1 (in scope), knowledge 9 of workspace 1 and knowledge 7 of
// workspace 2 (out of scope).
func mixedCorpus() []knowledge.Chunk {
	r := rand.New(rand.NewSource(42))
	owners := [][2]int64{{1, 7}, {1, 8}, {1, 9}, {2, 7}}
	var out []knowledge.Chunk
	for i := 0; i < 60; i++ {
		o := owners[i%len(owners)]
		out = append(out, chunk(int64(100+i), o[0], o[1], o[1]*10+int64(i%3), i, "filler text", randVec(r, 8)))
	}
	return out
}
