package indextest

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// BenchScope is the scope the benchmark corpus lives in.
var BenchScope = knowledge.Scope{WorkspaceID: 1, KnowledgeIDs: []int64{7}}

// benchWords is the benchmark vocabulary: 2,000 made-up English words and
// 300 two-character Chinese words, drawn with a skew like real text.
func benchWords(r *rand.Rand) (en, zh []string) {
	for i := 0; i < 2000; i++ {
		en = append(en, fmt.Sprintf("w%dx%c", i, 'a'+rune(i%26)))
	}
	for i := 0; i < 300; i++ {
		zh = append(zh, string([]rune{0x4e00 + rune(r.Intn(20000)), 0x4e00 + rune(r.Intn(20000))}))
	}
	return en, zh
}

func pick(r *rand.Rand, words []string) string {
	// The square skews towards the first words, as common words are.
	f := r.Float64()
	return words[int(f*f*float64(len(words)))]
}

// benchText is a chunk of ~60 words, one in five of them Chinese.
func benchText(r *rand.Rand, en, zh []string) string {
	var b strings.Builder
	for i := 0; i < 60; i++ {
		if i%5 == 4 {
			b.WriteString(pick(r, zh))
		} else {
			b.WriteString(pick(r, en))
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// LoadBench puts n chunks with clustered vectors of dims dimensions into
// BenchScope, in batches of 500, and returns query vectors drawn like them.
func LoadBench(tb testing.TB, ix knowledge.Index, n, dims int) [][]float32 {
	tb.Helper()
	r := rand.New(rand.NewSource(1))
	en, zh := benchWords(r)
	centres := make([][]float32, 50)
	for i := range centres {
		centres[i] = randVec(r, dims)
	}
	near := func() []float32 {
		c, v := centres[r.Intn(len(centres))], randVec(r, dims)
		for i := range v {
			v[i] = c[i] + 0.35*v[i]
		}
		return v
	}
	for start := 0; start < n; start += 500 {
		var batch []knowledge.Chunk
		for i := start; i < min(start+500, n); i++ {
			batch = append(batch, chunk(int64(i+1), 1, 7, int64(1+i/100), i%100, benchText(r, en, zh), near()))
		}
		if err := ix.PutChunks(context.Background(), batch); err != nil {
			tb.Fatalf("load: %v", err)
		}
	}
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = near()
	}
	return queries
}

// BenchQueries returns full-text queries of three words, one Chinese.
func BenchQueries() []string {
	r := rand.New(rand.NewSource(2))
	en, zh := benchWords(rand.New(rand.NewSource(1)))
	out := make([]string, 64)
	for i := range out {
		out[i] = pick(r, en) + " " + pick(r, en) + " " + pick(r, zh)
	}
	return out
}

// BenchVector measures SearchVector, topK 10, over the loaded corpus.
func BenchVector(b *testing.B, ix knowledge.Index, queries [][]float32) {
	ctx := context.Background()
	if _, err := ix.SearchVector(ctx, BenchScope, queries[0], 10); err != nil {
		b.Fatal(err) // the first search loads the cache (and builds a graph)
	}
	i := 0
	defer reportCPU(b, cpuTime())
	for b.Loop() {
		hits, err := ix.SearchVector(ctx, BenchScope, queries[i%len(queries)], 10)
		if err != nil || len(hits) != 10 {
			b.Fatalf("SearchVector: %d hits, %v", len(hits), err)
		}
		i++
	}
}

// BenchCommonQueries returns BenchQueries each with the corpus's two
// most common words added (held by ~2/3 and ~1/3 of the chunks), as real
// queries hold "the" or "of".
func BenchCommonQueries() []string {
	en, _ := benchWords(rand.New(rand.NewSource(1)))
	out := BenchQueries()
	for i := range out {
		out[i] = en[0] + " " + out[i] + " " + en[1]
	}
	return out
}

// BenchText measures SearchText, topK 10, over the loaded corpus.
func BenchText(b *testing.B, ix knowledge.Index) {
	textLoop(b, ix, BenchQueries())
}

// BenchTextCommon is BenchText with BenchCommonQueries.
func BenchTextCommon(b *testing.B, ix knowledge.Index) {
	textLoop(b, ix, BenchCommonQueries())
}

func textLoop(b *testing.B, ix knowledge.Index, queries []string) {
	ctx := context.Background()
	if _, err := ix.SearchText(ctx, BenchScope, queries[0], 10); err != nil {
		b.Fatal(err) // the first search loads the base's index
	}
	i := 0
	defer reportCPU(b, cpuTime())
	for b.Loop() {
		if _, err := ix.SearchText(ctx, BenchScope, queries[i%len(queries)], 10); err != nil {
			b.Fatalf("SearchText: %v", err)
		}
		i++
	}
}

// cpuTime is the CPU this process has used. On a shared machine it says
// more about the search's cost than wall time; it leaves out the work of
// a database server in another process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
