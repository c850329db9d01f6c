package sqlite

import (
	"testing"

	"github.com/pergola-ai/pergola/infra/knowledgestore/indextest"
)

// The benchmarks search 10,000 chunks of 768 dimensions in one base:
//
//	go test -run '^$' -bench . -benchtime 200x ./infra/knowledgestore/sqlite/
const benchChunks, benchDims = 10000, 768

func BenchmarkSearchVectorExact(b *testing.B) {
	ix := openTemp(b, WithANNThreshold(0))
	queries := indextest.LoadBench(b, ix, benchChunks, benchDims)
	indextest.BenchVector(b, ix, queries)
}

func BenchmarkSearchVectorANN(b *testing.B) {
	ix := openTemp(b, WithANNThreshold(1), WithSyncANNBuild())
	queries := indextest.LoadBench(b, ix, benchChunks, benchDims)
	indextest.BenchVector(b, ix, queries)
}

func BenchmarkSearchText(b *testing.B) {
	ix := openTemp(b)
	indextest.LoadBench(b, ix, benchChunks, benchDims)
	indextest.BenchText(b, ix)
}

func BenchmarkSearchTextCommonWords(b *testing.B) {
	ix := openTemp(b)
	indextest.LoadBench(b, ix, benchChunks, benchDims)
	indextest.BenchTextCommon(b, ix)
}
