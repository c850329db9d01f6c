package main

import (
	"fmt"
	"math/rand"
	"strings"
)

// vocabulary is how many distinct words the generated text uses; the
// words are drawn with a Zipf distribution, as words of real text are, so
// some are in most chunks and most are rare.
const vocabulary = 5000

// corpus generates documents, chunk by chunk, from a seed: any chunk can
// be generated again to ask about it without keeping the text.
type corpus struct {
	seed  int64
	words int
	vocab []string
}

func newCorpus(seed, words int) *corpus {
	r := rand.New(rand.NewSource(int64(seed)))
	syllables := []string{"ka", "lo", "mi", "ren", "sa", "tor", "vel", "qui", "dan", "bro", "fe", "gil",
		"ho", "jun", "pra", "sti", "ul", "wen", "xo", "zar", "nim", "ost", "pel", "rua"}
	seen := map[string]bool{}
	vocab := make([]string, 0, vocabulary)
	for len(vocab) < vocabulary {
		var w strings.Builder
		for range 2 + r.Intn(3) {
			w.WriteString(syllables[r.Intn(len(syllables))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			vocab = append(vocab, w.String())
		}
	}
	return &corpus{seed: int64(seed), words: words, vocab: vocab}
}

// chunk is the text of chunk i of document doc: one paragraph.
func (c *corpus) chunk(doc, i int) string {
	r := rand.New(rand.NewSource(c.seed*1_000_003 + int64(doc)*100_003 + int64(i)))
	z := rand.NewZipf(r, 1.1, 2, vocabulary-1)
	ws := make([]string, c.words)
	for k := range ws {
		ws[k] = c.vocab[z.Uint64()]
	}
	return strings.Join(ws, " ") + "."
}

// document is document doc's text: chunks paragraphs separated by blank
// lines, which the custom chunk strategy cuts at.
func (c *corpus) document(doc, chunks int) string {
	var b strings.Builder
	for i := range chunks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(c.chunk(doc, i))
	}
	return b.String()
}

// query asks about a random chunk of the corpus: 5 consecutive words of
// it, as a person recalling a passage would type.
func (c *corpus) query(r *rand.Rand, docs, chunksPerDoc int) string {
	ws := strings.Fields(strings.TrimSuffix(c.chunk(r.Intn(docs), r.Intn(chunksPerDoc)), "."))
	start := r.Intn(max(1, len(ws)-5))
	return strings.Join(ws[start:min(len(ws), start+5)], " ")
}

// csv is a table of rows: an id, a product name, a city and a note.
func (c *corpus) csv(rows int) string {
	r := rand.New(rand.NewSource(c.seed + 7))
	var b strings.Builder
	b.WriteString("id,product,city,note\n")
	for i := range rows {
		note := make([]string, 12)
		for k := range note {
			note[k] = c.vocab[r.Intn(vocabulary)]
		}
		fmt.Fprintf(&b, "%d,%s %s,%s,%s\n", i+1, c.vocab[r.Intn(vocabulary)], c.vocab[r.Intn(vocabulary)],
			c.vocab[r.Intn(200)], strings.Join(note, " "))
	}
	return b.String()
}
