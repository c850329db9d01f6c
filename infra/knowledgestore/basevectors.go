package knowledgestore

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// BaseVectors is what searches read of one knowledge base, in memory:
// its vectors, normalized to length 1 and laid out in one slice, with the
// chunk and document id of each, and the inverted index of its texts.
type BaseVectors struct {
	Revision int64
	Dims     int
	IDs      []int64
	docs     []int64
	data     []float32
	text     *baseText

	// From annMin vectors on, an HNSW graph is built once the set is
	// cached (in the background unless annSync); searches stay exact
	// until it is ready.
	annMin   int
	annSync  bool
	annStart sync.Once
	ann      atomic.Pointer[annGraph]
	// stale stops a graph build once the cache no longer holds this set.
	stale atomic.Bool
	used  uint64 // the cache's clock at the last use, under its lock
}

// NewBaseVectors starts an empty set of vectors of dims dimensions (0:
// the first vector's), loaded at revision.
func NewBaseVectors(revision int64, dims int) *BaseVectors {
	return &BaseVectors{Revision: revision, Dims: dims, text: newBaseText()}
}

// AddText indexes one chunk's text for full-text search.
func (b *BaseVectors) AddText(id, doc int64, text string) { b.text.add(id, doc, text) }

// Reserve makes room for n more vectors, so that loading a large base
// allocates its vectors once instead of doubling (and holding twice) them.
func (b *BaseVectors) Reserve(n int) {
	b.IDs = append(make([]int64, 0, len(b.IDs)+n), b.IDs...)
	b.docs = append(make([]int64, 0, len(b.docs)+n), b.docs...)
	b.data = append(make([]float32, 0, len(b.data)+n*b.Dims), b.data...)
}

// AddEncoded appends the vector of one chunk of document doc given as
// EncodeVector bytes, decoding it in place.
func (b *BaseVectors) AddEncoded(id, doc int64, blob []byte) error {
	if b.Dims == 0 {
		b.Dims = len(blob) / 4
	}
	if len(blob) != 4*b.Dims {
		return fmt.Errorf("chunk %d has %d bytes of vector, its base %d dimensions", id, len(blob), b.Dims)
	}
	start := len(b.data)
	for i := 0; i < b.Dims; i++ {
		b.data = append(b.data, math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:])))
	}
	normalize(b.data[start:])
	b.IDs = append(b.IDs, id)
	b.docs = append(b.docs, doc)
	return nil
}

// Add appends the vector of one chunk of document doc; it must have the
// set's dimensions.
func (b *BaseVectors) Add(id, doc int64, v []float32) error {
	if b.Dims == 0 {
		b.Dims = len(v)
	}
	if len(v) != b.Dims {
		return fmt.Errorf("chunk %d has %d dimensions, its base %d", id, len(v), b.Dims)
	}
	b.IDs = append(b.IDs, id)
	b.docs = append(b.docs, doc)
	b.data = append(b.data, Normalized(v)...)
	return nil
}

// Len returns the number of vectors.
func (b *BaseVectors) Len() int { return len(b.IDs) }

func (b *BaseVectors) vec(i int) []float32 { return b.data[i*b.Dims : (i+1)*b.Dims] }

// Search offers the cosine similarity of the vectors nearest q
// (normalized, of the set's dimensions) to top, leaving out the skipped
// documents' chunks: all of them, or those the HNSW graph finds once a
// base has one. When skipped chunks leave the graph's answer short of
// top's k, it compares every vector instead.
func (b *BaseVectors) Search(q []float32, skip Skip, top *TopK) {
	if len(q) != b.Dims || b.Len() == 0 {
		return
	}
	if g := b.graph(); g != nil && top.k <= annMaxK {
		var found TopK = TopK{k: top.k}
		g.search(b, q, skip, &found)
		if found.Len() == min(top.k, b.Len()) || len(skip) == 0 {
			for _, s := range found.h {
				top.Offer(s.ID, s.Score)
			}
			return
		}
	}
	b.SearchExact(q, skip, top)
}

// SearchExact compares q with every vector.
func (b *BaseVectors) SearchExact(q []float32, skip Skip, top *TopK) {
	for i, id := range b.IDs {
		if len(skip) > 0 && skip.Has(b.docs[i]) {
			continue
		}
		top.Offer(id, float64(Dot(q, b.vec(i))))
	}
}

// graph returns the HNSW graph if it is built, starting its build on the
// first call for a large base (VectorCache.Put makes that call).
func (b *BaseVectors) graph() *annGraph {
	if b.annMin <= 0 || b.Len() < b.annMin {
		return nil
	}
	b.annStart.Do(func() {
		build := func() {
			if g := buildGraph(b, &b.stale); g != nil {
				b.ann.Store(g)
			}
		}
		if b.annSync {
			build()
		} else {
			go build()
		}
	})
	return b.ann.Load()
}
