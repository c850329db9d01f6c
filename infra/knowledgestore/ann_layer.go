package knowledgestore

import (
	"container/heap"
	"sort"
	"sync"
)

// visits marks the nodes one layer search has seen: a slice stamped with
// a generation number, so that clearing it is free.
type visits struct {
	stamp []uint32
	gen   uint32
}

func newVisits(n int) *visits { return &visits{stamp: make([]uint32, n)} }

// next starts a new search.
func (v *visits) next() {
	v.gen++
	if v.gen == 0 { // wrapped: clear for real
		clear(v.stamp)
		v.gen = 1
	}
}

// visit marks id and reports whether it was new.
func (v *visits) visit(id int32) bool {
	if v.stamp[id] == v.gen {
		return false
	}
	v.stamp[id] = v.gen
	return true
}

// visitPool lends visits to concurrent searches of one graph.
type visitPool struct {
	n    int
	pool sync.Pool
}

func (p *visitPool) get() *visits {
	if v, ok := p.pool.Get().(*visits); ok {
		return v
	}
	return newVisits(p.n)
}

func (p *visitPool) put(v *visits) { p.pool.Put(v) }

// cand is a node with its distance to the query.
type cand struct {
	id int32
	d  float32
}

// searchLayer is the beam search of one layer from the entry points: it
// returns up to ef nodes nearest to q, nearest first.
func (g *annGraph) searchLayer(q []float32, entry []cand, ef, layer int, seen *visits) []cand {
	seen.next()
	todo := &nearHeap{}
	found := &farHeap{}
	for _, e := range entry {
		seen.visit(e.id)
		heap.Push(todo, e)
		heap.Push(found, e)
	}
	for found.Len() > ef {
		heap.Pop(found)
	}
	for todo.Len() > 0 {
		c := heap.Pop(todo).(cand)
		if c.d > (*found)[0].d && found.Len() >= ef {
			break
		}
		for _, n := range g.links[c.id][layer] {
			if !seen.visit(n) {
				continue
			}
			d := g.dist(q, n)
			if found.Len() < ef || d < (*found)[0].d {
				heap.Push(todo, cand{n, d})
				heap.Push(found, cand{n, d})
				if found.Len() > ef {
					heap.Pop(found)
				}
			}
		}
	}
	out := append([]cand(nil), *found...)
	sort.Slice(out, func(a, b int) bool { return out[a].d < out[b].d })
	return out
}

// nearHeap pops the nearest candidate first.
type nearHeap []cand

func (h nearHeap) Len() int           { return len(h) }
func (h nearHeap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h nearHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nearHeap) Push(x any)        { *h = append(*h, x.(cand)) }
func (h *nearHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// farHeap keeps the farthest kept node on top.
type farHeap []cand

func (h farHeap) Len() int           { return len(h) }
func (h farHeap) Less(i, j int) bool { return h[i].d > h[j].d }
func (h farHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *farHeap) Push(x any)        { *h = append(*h, x.(cand)) }
func (h *farHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
