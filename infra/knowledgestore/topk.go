package knowledgestore

import (
	"container/heap"
	"sort"
)

// Scored is a chunk id with its score.
type Scored struct {
	ID    int64
	Score float64
}

// TopK keeps the k best of the scores offered to it. Ties keep the lower
// id first, so every engine orders equal scores the same way.
type TopK struct {
	k int
	h minHeap
}

// NewTopK returns a collector of the k best scores.
func NewTopK(k int) *TopK { return &TopK{k: k} }

// Offer considers one score.
func (t *TopK) Offer(id int64, score float64) {
	s := Scored{ID: id, Score: score}
	if len(t.h) < t.k {
		heap.Push(&t.h, s)
		return
	}
	if t.k > 0 && better(s, t.h[0]) {
		t.h[0] = s
		heap.Fix(&t.h, 0)
	}
}

// Len returns how many scores are kept.
func (t *TopK) Len() int { return len(t.h) }

// Best returns the kept scores, best first.
func (t *TopK) Best() []Scored {
	out := append([]Scored(nil), t.h...)
	SortScored(out)
	return out
}

// SortScored orders scores best first, ties by id.
func SortScored(s []Scored) {
	sort.Slice(s, func(i, j int) bool { return better(s[i], s[j]) })
}

func better(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// minHeap keeps the worst kept score on top.
type minHeap []Scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(Scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
