package mysql

import (
	"testing"

	"github.com/pergola-ai/pergola/infra/knowledgestore/indextest"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// The benchmarks search 10,000 chunks of 768 dimensions in one base:
//
//	go test -run '^$' -bench . -benchtime 200x ./infra/knowledgestore/mysql/
const benchChunks, benchDims = 10000, 768

func BenchmarkSearchVector(b *testing.B) {
	ix := open(b, testenv.MySQL(b))
	queries := indextest.LoadBench(b, ix, benchChunks, benchDims)
	indextest.BenchVector(b, ix, queries)
}

func BenchmarkSearchText(b *testing.B) {
	ix := open(b, testenv.MySQL(b))
	indextest.LoadBench(b, ix, benchChunks, benchDims)
	indextest.BenchText(b, ix)
}

func BenchmarkSearchTextCommonWords(b *testing.B) {
	ix := open(b, testenv.MySQL(b))
	indextest.LoadBench(b, ix, benchChunks, benchDims)
	indextest.BenchTextCommon(b, ix)
}
