package knowledgestore

import "math"

// BM25 parameters: the usual defaults of Lucene and SQLite FTS5.
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25IDF is the inverse document frequency of a term held by df of docs
// chunks (never negative).
func BM25IDF(docs, df int64) float64 {
	return math.Log(1 + (float64(docs)-float64(df)+0.5)/(float64(df)+0.5))
}
