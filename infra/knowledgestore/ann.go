package knowledgestore

import (
	"math"
	"math/rand"
	"sort"
	"sync/atomic"
)

// HNSW settings (Malkov & Yashunin): neighbours per node (twice that on
// the bottom layer) and the beam while building; the beam of searches is
// calibrated per graph (see calibrate). They give recall@10 of at least
// 0.95 against exact search on clustered and on uniform random vectors
// (TestANNRecall).
const (
	annM       = 24
	annEfBuild = 128
	// annMaxK is the largest topK answered from the graph; larger ones
	// search exhaustively.
	annMaxK = 64
)

// github.com/coder/hnsw (v0.6.1) was tried first: its layer search stops
// at the first step that does not improve the best distance, and measured
// recall@10 was 0.12 to 0.40 on the data of TestANNRecall. This is the
// algorithm of the paper, on the base's normalized vectors.

// annGraph is an HNSW graph over the vectors of one BaseVectors, by index.
type annGraph struct {
	b        *BaseVectors
	links    [][][]int32 // links[node][layer]
	entry    int32
	maxLayer int
	rng      *rand.Rand
	efQuery  int
	building *visits   // the build's own, it runs alone
	visits   visitPool // for searches, which run concurrently
}

// buildGraph inserts every vector; it gives up (nil) when stop is set.
func buildGraph(b *BaseVectors, stop *atomic.Bool) *annGraph {
	g := &annGraph{b: b, links: make([][][]int32, b.Len()), entry: -1,
		rng: rand.New(rand.NewSource(int64(b.Len()))), building: newVisits(b.Len())}
	g.visits.n = b.Len()
	defer func() { g.building = nil }()
	held := max(b.Len()-annSample, 0) // the vectors the beam is calibrated on
	for i := range b.IDs {
		if i%1024 == 0 && stop != nil && stop.Load() {
			return nil
		}
		if i == held {
			g.calibrate(held)
		}
		g.insert(int32(i))
	}
	return g
}

func (g *annGraph) dist(q []float32, i int32) float32 { return 1 - Dot(q, g.b.vec(int(i))) }

func (g *annGraph) randomLayer() int {
	return int(-math.Log(1-g.rng.Float64()) / math.Log(annM))
}

func (g *annGraph) insert(i int32) {
	layer := g.randomLayer()
	g.links[i] = make([][]int32, layer+1)
	if g.entry < 0 {
		g.entry, g.maxLayer = i, layer
		return
	}
	q := g.b.vec(int(i))
	ep := []cand{{g.entry, g.dist(q, g.entry)}}
	for l := g.maxLayer; l > layer; l-- {
		ep = g.searchLayer(q, ep, 1, l, g.building)
	}
	for l := min(layer, g.maxLayer); l >= 0; l-- {
		found := g.searchLayer(q, ep, annEfBuild, l, g.building)
		g.links[i][l] = g.selectNeighbours(found, annM)
		for _, n := range g.links[i][l] {
			g.connect(n, i, l)
		}
		ep = found
	}
	if layer > g.maxLayer {
		g.entry, g.maxLayer = i, layer
	}
}

// connect adds i to n's neighbours on layer l. A list may grow half
// again past its limit before it is pruned back with the heuristic: the
// pruning costs a quadratic number of distances, paid once per many links
// this way, and it is what keeps links between clusters.
func (g *annGraph) connect(n, i int32, l int) {
	limit := annM
	if l == 0 {
		limit = 2 * annM
	}
	nb := append(g.links[n][l], i)
	if len(nb) > limit+limit/2 {
		q := g.b.vec(int(n))
		cs := make([]cand, len(nb))
		for k, x := range nb {
			cs[k] = cand{x, g.dist(q, x)}
		}
		sort.Slice(cs, func(a, b int) bool { return cs[a].d < cs[b].d })
		nb = g.selectNeighbours(cs, limit)
	}
	g.links[n][l] = nb
}

// selectNeighbours keeps up to m of the candidates (sorted nearest first),
// preferring ones not closer to an already kept neighbour than to the
// node (the paper's heuristic, which keeps links across clusters), then
// filling up with the nearest of the rest.
func (g *annGraph) selectNeighbours(cs []cand, m int) []int32 {
	out := make([]int32, 0, m)
	var skipped []int32
	for _, c := range cs {
		if len(out) == m {
			break
		}
		keep := true
		v := g.b.vec(int(c.id))
		for _, o := range out {
			if g.dist(v, o) < c.d {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, c.id)
		} else {
			skipped = append(skipped, c.id)
		}
	}
	for _, s := range skipped {
		if len(out) == m {
			break
		}
		out = append(out, s)
	}
	return out
}

// search offers the graph's nearest neighbours of q, scored exactly,
// leaving out the skipped documents' chunks.
func (g *annGraph) search(b *BaseVectors, q []float32, skip Skip, top *TopK) {
	seen := g.visits.get()
	defer g.visits.put(seen)
	ep := []cand{{g.entry, g.dist(q, g.entry)}}
	for l := g.maxLayer; l > 0; l-- {
		ep = g.searchLayer(q, ep, 1, l, seen)
	}
	for _, c := range g.searchLayer(q, ep, max(g.efQuery, top.k), 0, seen) {
		if !skip.Has(b.docs[c.id]) {
			top.Offer(b.IDs[c.id], float64(1-c.d))
		}
	}
}
