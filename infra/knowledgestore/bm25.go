package knowledgestore

import "math"

// BM25 parameters: the usual defaults of Lucene and SQLite FTS5.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// BM25 scores chunks for engines that keep their own term statistics.
type BM25 struct {
	Docs   int64            // chunks in the scope
	AvgLen float64          // their mean number of terms
	DF     map[string]int64 // per query term, the chunks holding it
}

// Score returns the BM25 score of one chunk of docLen terms that holds the
// query terms tf times each.
func (m BM25) Score(tf map[string]int, docLen int) float64 {
	avg := m.AvgLen
	if avg <= 0 {
		avg = 1
	}
	var s float64
	for term, f := range tf {
		df := float64(m.DF[term])
		idf := math.Log(1 + (float64(m.Docs)-df+0.5)/(df+0.5))
		tfw := float64(f) * (bm25K1 + 1) / (float64(f) + bm25K1*(1-bm25B+bm25B*float64(docLen)/avg))
		s += idf * tfw
	}
	return s
}
