package knowledgestore

// baseText is an inverted index of one knowledge base's chunk texts, in
// memory beside its vectors: per term the chunks holding it with the
// term's frequency. A search scores BM25 over it exactly, every query
// term included, touching only the postings of the query's terms.
type baseText struct {
	ids      []int64
	docs     []int64
	lens     []int32 // terms per chunk
	totalLen int64
	postings map[string][]posting
}

// posting is one chunk (by index in baseText) holding a term tf times.
type posting struct {
	i  int32
	tf int32
}

func newBaseText() *baseText { return &baseText{postings: map[string][]posting{}} }

// add indexes one chunk's text.
func (t *baseText) add(id, doc int64, text string) {
	i := int32(len(t.ids))
	terms := IndexTerms(text)
	t.ids = append(t.ids, id)
	t.docs = append(t.docs, doc)
	t.lens = append(t.lens, int32(len(terms)))
	t.totalLen += int64(len(terms))
	tf := map[string]int32{}
	for _, term := range terms {
		tf[term]++
	}
	for term, n := range tf {
		t.postings[term] = append(t.postings[term], posting{i, n})
	}
}

func (t *baseText) bytes() int64 {
	n := int64(len(t.ids))*20 + int64(len(t.postings))*48
	for _, p := range t.postings {
		n += int64(cap(p)) * 8
	}
	return n
}

// TextStats are the BM25 statistics of a search's scope, summed over its
// bases: chunks, their mean length and the idf of each query term worth
// searching (SelectTerms: common terms are left out, as every engine
// does, so a chunk holding only "the" is not a match).
type TextStats struct {
	docs int64
	avg  float64
	idf  map[string]float64
}

// Stats sums the statistics of bases for the query terms.
func Stats(terms []string, bases ...*BaseVectors) TextStats {
	var docs, total int64
	df := map[string]int64{}
	for _, b := range bases {
		docs += int64(len(b.text.ids))
		total += b.text.totalLen
		for _, term := range terms {
			df[term] += int64(len(b.text.postings[term]))
		}
	}
	st := TextStats{docs: docs, avg: 1, idf: map[string]float64{}}
	if docs > 0 {
		st.avg = max(float64(total)/float64(docs), 1)
	}
	for _, term := range SelectTerms(df, docs) {
		st.idf[term] = BM25IDF(docs, df[term])
	}
	return st
}

// SearchText offers the BM25 score of every chunk of the base holding at
// least one of the terms, leaving out the skipped documents' chunks.
func (b *BaseVectors) SearchText(terms []string, st TextStats, skip Skip, top *TopK) {
	t := b.text
	if len(t.ids) == 0 {
		return
	}
	score := make([]float64, len(t.ids))
	hit := make([]bool, len(t.ids))
	for _, term := range terms {
		idf, ok := st.idf[term]
		if !ok {
			continue
		}
		for _, p := range t.postings[term] {
			tf := float64(p.tf)
			norm := BM25K1 * (1 - BM25B + BM25B*float64(t.lens[p.i])/st.avg)
			score[p.i] += idf * tf * (BM25K1 + 1) / (tf + norm)
			hit[p.i] = true
		}
	}
	for i, ok := range hit {
		if ok && !skip.Has(t.docs[i]) {
			top.Offer(t.ids[i], score[i])
		}
	}
}

// Skip is the set of documents a search leaves out (nil: none).
type Skip map[int64]struct{}

// SkipOf returns the set of the given documents, nil for none.
func SkipOf(docs []int64) Skip {
	if len(docs) == 0 {
		return nil
	}
	s := make(Skip, len(docs))
	for _, d := range docs {
		s[d] = struct{}{}
	}
	return s
}

// Has reports whether doc is left out.
func (s Skip) Has(doc int64) bool {
	if len(s) == 0 {
		return false
	}
	_, ok := s[doc]
	return ok
}
