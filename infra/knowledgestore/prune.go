package knowledgestore

import "sort"

// Query terms held by more than CommonTermShare of a base's chunks are
// dropped once the base has CommonTermMinDocs chunks: they add little to
// BM25 (their idf is near zero) yet make the engine score nearly every
// chunk. At most MaxQueryTerms terms, the rarest, are searched for.
const (
	CommonTermShare   = 0.3
	CommonTermMinDocs = 200
	MaxQueryTerms     = 32
)

// SelectTerms returns the terms worth searching for, rarest first, given
// each term's document frequency df among docs chunks: terms no chunk
// holds and common terms are left out, but the rarest terms are always
// kept, so a query of only common words still finds chunks.
func SelectTerms(df map[string]int64, docs int64) []string {
	var terms []string
	for t, n := range df {
		if n > 0 {
			terms = append(terms, t)
		}
	}
	sort.Slice(terms, func(i, j int) bool {
		if df[terms[i]] != df[terms[j]] {
			return df[terms[i]] < df[terms[j]]
		}
		return terms[i] < terms[j]
	})
	kept := 0
	for kept < len(terms) && !isCommon(df[terms[kept]], docs) {
		kept++
	}
	if kept == 0 {
		// Every term is common: keep those as rare as the rarest.
		for kept < len(terms) && df[terms[kept]] == df[terms[0]] {
			kept++
		}
	}
	return terms[:min(kept, MaxQueryTerms)]
}

func isCommon(df, docs int64) bool {
	return docs >= CommonTermMinDocs && float64(df) > CommonTermShare*float64(docs)
}
