package knowledgestore

import (
	"container/heap"
	"sort"
)

// cand is a node with its distance to the query.
type cand struct {
	id int32
	d  float32
}

// searchLayer is the beam search of one layer from the entry points: it
// returns up to ef nodes nearest to q, nearest first.
func (g *annGraph) searchLayer(q []float32, entry []cand, ef, layer int) []cand {
	visited := make(map[int32]struct{}, ef*4)
	todo := &nearHeap{}
	found := &farHeap{}
	for _, e := range entry {
		visited[e.id] = struct{}{}
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
			if _, seen := visited[n]; seen {
				continue
			}
			visited[n] = struct{}{}
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
